import { Callout, Card, H2, NonIdealState, Spinner, Tab, Tabs, type TabId } from '@blueprintjs/core';
import { useEffect, useState } from 'react';
import { useSearchParams } from 'react-router-dom';
import { OrganizationPicker, useWorkingOrganization } from '../../components/OrganizationPicker';
import { useSession } from '../../lib/session';
import { AccountsTab } from './AccountsTab';
import { useOverview } from './api/overview';
import type { RunOutcome } from './api/runs';
import { EntitiesTab } from './EntitiesTab';
import { IntercompanyTab } from './IntercompanyTab';
import { JournalsTab } from './JournalsTab';
import { MappingTab } from './MappingTab';
import { RatesTab } from './RatesTab';
import { RunsTab } from './RunsTab';
import { SettingsCard } from './SettingsCard';
import { HowItWorks } from '../../components/HowItWorks';

const TABS = ['entities', 'accounts', 'mapping', 'rates', 'intercompany', 'journals', 'runs'] as const;
type TabName = (typeof TABS)[number];
const isTab = (t: string | null): t is TabName => (TABS as readonly (string | null)[]).includes(t);

/** The consolidation of one organization (issue 18): settings, then a tab per part of the work. */
export default function ConsolidationPage() {
  const { user } = useSession();
  const [picked, setPicked] = useState('');
  const orgId = useWorkingOrganization(user?.role, user?.organization_id, picked);
  const [params, setParams] = useSearchParams();
  const asked = params.get('tab');
  const tab: TabName = isTab(asked) ? asked : 'entities';
  const { overview, error, isLoading } = useOverview(orgId);
  // The last run's outcome outlives a switch of tab, not a switch of organization.
  const [lastRun, setLastRun] = useState<RunOutcome>();
  useEffect(() => setLastRun(undefined), [orgId]);

  // The tab is in the address (?tab=mapping), so a link or a reload opens it again.
  function selectTab(id: TabId) {
    const next = new URLSearchParams(params);
    next.set('tab', String(id));
    setParams(next, { replace: true });
  }

  return (
    <div className="page consolidation-page">
      <H2>Consolidation</H2>
      <HowItWorks screen="consolidation" />
      {user?.role === 'admin' && <OrganizationPicker value={picked} onChange={setPicked} />}
      {!orgId ? (
        <NonIdealState icon="diagram-tree" title={user?.role === 'admin' ? 'Pick an organization' : 'No organization'} description="A consolidation belongs to an organization." />
      ) : isLoading && !overview ? (
        <Spinner size={32} />
      ) : error || !overview ? (
        <Callout intent="danger" role="alert">
          {(error as Error | undefined)?.message ?? 'Failed to load the consolidation'}
        </Callout>
      ) : (
        <>
          <SettingsCard key={`${orgId}:${JSON.stringify(overview.settings)}`} orgId={orgId} settings={overview.settings} />
          <Card className="page-card">
            <Tabs id="consolidation-tabs" className="consolidation-tabs" selectedTabId={tab} onChange={selectTab} renderActiveTabPanelOnly>
              <Tab id="entities" title="Entities" panel={<EntitiesTab orgId={orgId} entities={overview.entities} accounts={overview.accounts} presentationCurrency={overview.settings.presentationCurrency} />} />
              <Tab id="accounts" title="Group accounts" panel={<AccountsTab orgId={orgId} accounts={overview.accounts} />} />
              <Tab id="mapping" title="Mapping" panel={<MappingTab orgId={orgId} entities={overview.entities} accounts={overview.accounts} />} />
              <Tab id="rates" title="Exchange rates" panel={<RatesTab orgId={orgId} presentationCurrency={overview.settings.presentationCurrency} entities={overview.entities} accounts={overview.accounts} />} />
              <Tab id="intercompany" title="Intercompany" panel={<IntercompanyTab orgId={orgId} entities={overview.entities} accounts={overview.accounts} periods={overview.checks.map((c) => c.period)} />} />
              <Tab id="journals" title="Journals" panel={<JournalsTab orgId={orgId} entities={overview.entities} accounts={overview.accounts} />} />
              <Tab id="runs" title="Runs and locks" panel={<RunsTab orgId={orgId} overview={overview} lastRun={lastRun} onRun={setLastRun} />} />
            </Tabs>
          </Card>
        </>
      )}
    </div>
  );
}
