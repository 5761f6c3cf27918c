import { paths } from '../app/paths';
import type { Dashboard } from '../lib/session';

export interface MenuEntry {
  label: string;
  to: string;
  children?: MenuEntry[];
}

/** The sidebar menu of spec section 2: by role, Dashboard with one sub-item per dashboard. */
export function menuForRole(role: string | undefined, dashboards: Dashboard[] = []): MenuEntry[] {
  const common: MenuEntry[] = [
    { label: 'Upload File', to: paths.fileUpload },
    { label: 'Pipelines', to: paths.pipelines },
    { label: 'Data', to: paths.data },
    { label: 'Consolidation', to: paths.consolidation },
    { label: 'Reports', to: paths.reports },
    { label: 'Apps', to: paths.apps },
    { label: 'Dashboard', to: paths.dashboard, children: dashboards.map((d) => ({ label: d.name, to: `${paths.dashboard}?name=${encodeURIComponent(d.name)}` })) },
  ];
  if (role === 'user') return common;
  if (role === 'admin') return [{ label: 'Organizations', to: paths.organizations }, { label: 'Org - Onboarding', to: paths.orgOnboarding }, { label: 'Users', to: paths.users }, ...common];
  return [];
}
