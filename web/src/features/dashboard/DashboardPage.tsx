import { Callout, H2, NonIdealState, Spinner, Tab, Tabs } from '@blueprintjs/core';
import { useState } from 'react';
import { Link, useSearchParams } from 'react-router-dom';
import { paths } from '../../app/paths';
import { OrganizationPicker, useWorkingOrganization } from '../../components/OrganizationPicker';
import { useCurrentOrganization } from '../../shared/organizations/useCurrentOrganization';
import { orgId as idOf } from '../../shared/organizations/types';
import { useOrganizations } from '../../shared/organizations/useOrganizations';
import { DASHBOARDS_FAILED, parseDashboards } from '../../lib/format';
import { useSession, type Dashboard } from '../../lib/session';
import { EmbeddedDashboard } from './EmbeddedDashboard';
import { GettingStarted } from './GettingStarted';
import { Overview } from './Overview';
import { HowItWorks } from '../../components/HowItWorks';

export const NO_DASHBOARDS = 'No dashboards available for your account.';
export const DASHBOARD_NOT_FOUND = 'Dashboard not found';

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

const dashboardLink = (name: string) => `${paths.dashboard}?name=${encodeURIComponent(name)}`;

/** An unknown ?name=: said plainly, with the dashboards there are (never another one in its place). */
function NotFound({ name, dashboards }: { name: string; dashboards: Dashboard[] }) {
  return (
    <NonIdealState
      icon="search"
      title={DASHBOARD_NOT_FOUND}
      description={
        <>
          <p>There is no dashboard called "{name}".</p>
          {dashboards.length ? (
            <>
              <p>The dashboards available:</p>
              <ul className="dashboard-list">
                {dashboards.map((d) => (
                  <li key={d.name}>
                    <Link to={dashboardLink(d.name)}>{d.name}</Link>
                  </li>
                ))}
              </ul>
            </>
          ) : (
            <p>
              No dashboard is configured: <Link to={paths.dashboard}>open the overview</Link>.
            </p>
          )}
        </>
      }
    />
  );
}

/**
 * The Dashboard (spec section 2): the organization's embedded BI dashboards, one tab each, ?name=
 * picking one; without any, the built-in overview of the organization's own figures.
 */
export default function DashboardPage() {
  const { user } = useSession();
  const admin = user?.role === 'admin';
  const [picked, setPicked] = useState('');
  const [params, setParams] = useSearchParams();
  const own = useCurrentOrganization();
  const forAdmin = useAdminDashboards(admin, picked);
  const { dashboards, isLoading } = admin ? forAdmin : own;
  const error = admin ? forAdmin.error : own.dashboardsError;
  const orgId = useWorkingOrganization(user?.role, user?.organization_id, picked);
  const name = params.get('name');
  const selected = name === null ? dashboards[0] : dashboards.find((d) => d.name === name);

  return (
    <div className="page page-wide">
      <H2>Dashboard</H2>
      <HowItWorks screen="dashboard" />
      {admin && <OrganizationPicker value={picked} onChange={setPicked} />}
      {orgId && <GettingStarted orgId={orgId} />}
      {isLoading ? (
        <div className="overview-loading" role="status">
          <Spinner size={20} />
          <span>Loading dashboards...</span>
        </div>
      ) : error ? (
        <Callout intent="danger" role="alert">{error}</Callout>
      ) : admin && !picked ? (
        <NonIdealState icon="dashboard" title="Pick an organization" description="Dashboards belong to an organization." />
      ) : name !== null && !selected ? (
        <NotFound name={name} dashboards={dashboards} />
      ) : !selected ? (
        orgId ? <Overview orgId={orgId} /> : <NonIdealState icon="dashboard" title={NO_DASHBOARDS} />
      ) : (
        <>
          {dashboards.length > 1 && (
            <Tabs id="dashboards" selectedTabId={selected.name} onChange={(id) => setParams({ name: String(id) })}>
              {dashboards.map((d) => (
                <Tab key={d.name} id={d.name} title={d.name} />
              ))}
            </Tabs>
          )}
          <EmbeddedDashboard key={`${selected.name}\n${selected.url}`} dashboard={selected} />
        </>
      )}
    </div>
  );
}
