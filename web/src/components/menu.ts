import { paths } from '../app/paths';
import type { Dashboard } from '../lib/session';

export interface MenuEntry {
  label: string;
  to: string;
  children?: MenuEntry[];
}

/**
 * The sidebar menu of spec section 2, by role, ordered by the month's work (issue 34): the group's
 * figures first (Dashboard, with one sub-item per dashboard, and Reports), then closing the month
 * (Consolidation), then what feeds it (Data, Pipelines, Apps, Upload File).
 */
export function menuForRole(role: string | undefined, dashboards: Dashboard[] = []): MenuEntry[] {
  const common: MenuEntry[] = [
    { label: 'Dashboard', to: paths.dashboard, children: dashboards.map((d) => ({ label: d.name, to: `${paths.dashboard}?name=${encodeURIComponent(d.name)}` })) },
    { label: 'Reports', to: paths.reports },
    { label: 'Consolidation', to: paths.consolidation },
    { label: 'Data', to: paths.data },
    { label: 'Pipelines', to: paths.pipelines },
    { label: 'Apps', to: paths.apps },
    { label: 'Upload File', to: paths.fileUpload },
  ];
  if (role === 'user') return common;
  if (role === 'admin') return [{ label: 'Organizations', to: paths.organizations }, { label: 'Org - Onboarding', to: paths.orgOnboarding }, { label: 'Users', to: paths.users }, { label: 'Operations', to: paths.operations }, ...common];
  return [];
}
