// The "How this works" texts of every screen, in one place: a few sentences a finance user reads
// before the screen's first use, and the docs page (and heading) that says the rest. Each link is
// checked against docs/ by test/how-it-works.test.ts, and served as HTML by GET /api/v1/docs/{page}.

export interface HowItWorksText {
  /** Two to four short sentences. */
  text: string;
  /** The docs page (docs/<doc>.md) without its extension. */
  doc: string;
  /** A heading of that page (its GitHub anchor), when the screen is one part of it. */
  anchor?: string;
}

export const HOW_IT_WORKS = {
  dashboard: {
    text: "The overview shows the group's consolidated figures month by month: revenue, profit, cash and the entities' contributions, from the last consolidation. The getting-started checklist above it ticks itself as the organization's data, mappings, rates and consolidation are in place.",
    doc: 'reports',
    anchor: 'dashboard-overview',
  },
  reports: {
    text: 'Statements and custom reports over the consolidated figures, for a month, quarter, year to date or fiscal year, by entity or compared with an earlier period. Click a figure to see the entities and source accounts behind it. Notices above the table say which months are not consolidated, blocked or may still change.',
    doc: 'reports',
    anchor: 'reports',
  },
  consolidation: {
    text: "Set the group's entities and ownership, map each source account to the group chart (suggestions can be accepted in bulk), give the exchange rates for every currency and month, then run the consolidation. Each month's checks say whether it balances and what blocks it; a locked month no longer changes.",
    doc: 'consolidation',
  },
  data: {
    text: "Every table of the organization's database: the trial balance the pipelines build, the tables synced from your ledgers and the CSV files saved as tables. Open one to filter, sort and download it.",
    doc: 'reports',
    anchor: 'data-explorer',
  },
  pipelines: {
    text: 'Pipelines load uploaded files into tables and rebuild the trial balance from every source; a run ends with a consolidation once the group is set up. Running shows the runs in progress, the history every run with what it did per table.',
    doc: 'pipelines',
    anchor: 'pipeline-runs',
  },
  apps: {
    text: 'Connect a ledger (QuickBooks Online, Sage Intacct, NetSuite or Xero) once; its trial balance then syncs into the organization on a schedule, on a change in the ledger, or with Sync now. Each connection shows how up to date it is.',
    doc: 'ledgers',
    anchor: 'connections-and-syncs',
  },
  upload: {
    text: 'Upload a trial balance or any table as a CSV file, then save it as a table: the next pipeline run loads it into the trial balance beside your ledgers. The file list shows what was uploaded and saved, by whom.',
    doc: 'pipelines',
    anchor: 'file-upload',
  },
  organizations: {
    text: "Admins create an organization, then onboard it (its database and storage), and invite its users. Deleting an organization removes its data after a confirmation.",
    doc: 'pipelines',
    anchor: 'onboarding',
  },
  onboarding: {
    text: "Onboarding creates the organization's database, storage and pipelines, step by step, with the progress shown here; a failed step can be run again without losing the steps before it.",
    doc: 'pipelines',
    anchor: 'onboarding',
  },
  users: {
    text: 'Admins invite users to an organization by mail; an invited user sets a password from the link. A user sees only their own organization; an admin sees every one.',
    doc: 'security',
    anchor: 'roles',
  },
} satisfies Record<string, HowItWorksText>;

export type HowItWorksScreen = keyof typeof HOW_IT_WORKS;

/** Where a screen's "Read more" goes: the docs page as the api serves it. */
export function howItWorksHref(screen: HowItWorksScreen): string {
  const t: HowItWorksText = HOW_IT_WORKS[screen];
  return `/api/v1/docs/${t.doc}${t.anchor ? `#${t.anchor}` : ''}`;
}
