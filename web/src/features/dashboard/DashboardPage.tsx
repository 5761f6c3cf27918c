import { Callout, H2, NonIdealState, Spinner, Tab, Tabs } from '@blueprintjs/core';
import { useState } from 'react';
import { useSearchParams } from 'react-router-dom';
import { OrganizationPicker } from '../../components/OrganizationPicker';
import { useCurrentOrganization } from '../../shared/organizations/useCurrentOrganization';
import { orgId as idOf } from '../../shared/organizations/types';
import { useOrganizations } from '../../shared/organizations/useOrganizations';
import { DASHBOARDS_FAILED, parseDashboards } from '../../lib/format';
import { useSession, type Dashboard } from '../../lib/session';

export const NO_DASHBOARDS = 'No dashboards available for your account.';

function useAdminDashboards(enabled: boolean, picked: string): { dashboards: Dashboard[]; error?: string; isLoading: boolean } {
  const { organizations, error, isLoading } = useOrganizations({}, enabled);
  if (!enabled || !picked) return { dashboards: [], isLoading: false };
  if (error) return { dashboards: [], error: DASHBOARDS_FAILED, isLoading: false };
  try {
    return { dashboards: parseDashboards(organizations.find((o) => idOf(o) === picked)?.dashboards), isLoading };
  } catch {
    return { dashboards: [], error: DASHBOARDS_FAILED, isLoading: false };
  }
}

export default function DashboardPage() {
  const { user } = useSession();
  const admin = user?.role === 'admin';
  const [picked, setPicked] = useState('');
  const [params, setParams] = useSearchParams();
  const own = useCurrentOrganization();
  const forAdmin = useAdminDashboards(admin, picked);
  const { dashboards, isLoading } = admin ? forAdmin : own;
  const error = admin ? forAdmin.error : own.dashboardsError;
  const name = params.get('name');
  const selected = dashboards.find((d) => d.name === name) ?? dashboards[0];

  return (
    <div className="page page-wide">
      <H2>Dashboard</H2>
      {admin && <OrganizationPicker value={picked} onChange={setPicked} />}
      {isLoading ? (
        <Spinner />
      ) : error ? (
        <Callout intent="danger" role="alert">{error}</Callout>
      ) : admin && !picked ? (
        <NonIdealState icon="dashboard" title="Pick an organization" description="Dashboards belong to an organization." />
      ) : dashboards.length === 0 || !selected ? (
        <NonIdealState icon="dashboard" title={NO_DASHBOARDS} />
      ) : (
        <>
          {dashboards.length > 1 && (
            <Tabs id="dashboards" selectedTabId={selected.name} onChange={(id) => setParams({ name: String(id) })}>
              {dashboards.map((d) => (
                <Tab key={d.name} id={d.name} title={d.name} />
              ))}
            </Tabs>
          )}
          <iframe className="dashboard-frame" title={selected.name} src={selected.url} allowFullScreen sandbox="allow-scripts allow-same-origin allow-forms allow-popups" referrerPolicy="no-referrer" />
        </>
      )}
    </div>
  );
}
