// The demo organization on the embedded default (docs/demo.md): on the first start the api
// creates "LedgerFlow Demo Group" and its demo user, and then does what an admin and a finance
// user would do in the browser, through this api over loopback and so through the real
// workflows: onboarding, connecting the simulated QuickBooks (OAuth consent and code exchange),
// Sage Intacct (XML session), NetSuite (JWT client credentials) and Xero (OAuth consent, the
// organisation picked) companies of simulators/,
// syncing them, saving the budget CSV as a table, running the pipelines, setting the group up
// (entities, ownership, mappings, intercompany accounts, rates), booking one consolidation
// journal, mapping the budget for budget vs actual and consolidating 24 months.
//
// Each step is recorded in the app setting "demo-seed" when done, so a start interrupted half
// way resumes where it stopped; a failed step is retried a few times, then reported with the fix.
// An admin removes the demo like any organization; its removal marker ("demo-organization")
// keeps it from ever coming back. DEMO=false skips all of this.
import { readFileSync } from 'node:fs';
import { parse } from 'csv-parse/sync';
import { stringify } from 'csv-stringify/sync';
import type { Config } from '../../common/config';
import { CONNECTORS } from '../../common/connectors';
import type { SyncProvider } from '../../common/contract/connections';
import { decryptSecret, encryptSecret } from '../../common/crypto';
import { logger } from '../../common/logger';
import { getAppSetting, setAppSetting } from '../../common/models/app-setting';
import { Organization } from '../../common/models/organization';
import { User, type UserDoc } from '../../common/models/user';
import { signToken } from '../lib/auth';
import { generatePassword } from '../lib/first-admin';
import { DemoClient, sleep, until, type Answer } from './client';
import { readDemoPlan, type DemoPlan, type DemoRole } from './plan';
import { armSageTrigger } from './sage-trigger';

/** The demo's budget in Reports. */
export const DEMO_BUDGET_NAME = 'Demo group budget';

/** The budget workbook's CSV (business_unit, budget_month, group_account, budget_amount) as the budget import's (entity, period, group_account, amount). */
export function budgetForReports(workbook: string): string {
  const rows = parse(workbook, { columns: true, skip_empty_lines: true, trim: true, bom: true }) as Record<string, string>[];
  return stringify(rows.map((r) => [r.business_unit, r.budget_month, r.group_account, r.budget_amount]), { header: true, columns: ['entity', 'period', 'group_account', 'amount'] });
}

export const DEMO_SEED = 'demo-seed';
export const DEMO_REMOVED = 'demo-organization';
export const DEMO_ORGANIZATION_NAME = 'LedgerFlow Demo Group';
export const DEMO_EMAIL = 'demo@ledgerflow.local';

/** The simulated companies' sign-ins and the demo plan's file, from npm start (DEMO_CONNECTIONS). */
export interface DemoConnections {
  quickbooks: { realmId: string };
  /** triggerUrl: the simulator's PUT /simulator/v1/trigger (absent from simulators before it). */
  sage: { senderId: string; senderPassword: string; companyId: string; userId: string; userPassword: string; triggerUrl?: string };
  netsuite: { accountId: string; clientId: string; certificateId: string; keyFile: string };
  /** The group's set-up the simulators wrote from their books (common/demo-plan.ts). */
  planFile: string;
}

interface SeedState {
  orgId?: string;
  userId?: string;
  passwordEnc?: string;
  done: string[];
  status: 'seeding' | 'ready' | 'failed';
  error?: string;
  startedAt: string;
  readyAt?: string;
  seconds?: number;
}

/** Whether this start seeds (or reports) the demo, and why not. */
export function demoWanted(cfg: Config): { wanted: true; connections: DemoConnections } | { wanted: false; why: string } {
  if (cfg.PROVIDER !== 'local' || cfg.NODE_ENV === 'production') return { wanted: false, why: 'not the embedded default' };
  if (!cfg.DEMO) return { wanted: false, why: 'DEMO=false' };
  if (!cfg.DEMO_CONNECTIONS) return { wanted: false, why: 'the simulators are not running (SIMULATORS=false, or a QuickBooks, Sage, NetSuite or Xero setting of your own is set)' };
  return { wanted: true, connections: JSON.parse(cfg.DEMO_CONNECTIONS) as DemoConnections };
}

const say = (line: string) => process.stdout.write(`[demo] ${line}\n`);

interface Step {
  name: string;
  label: string;
  run: (ctx: Ctx) => Promise<void>;
}

interface Ctx {
  cfg: Config;
  state: SeedState;
  admin: DemoClient;
  /** The demo user's client (signed in by the step that needs it). */
  user: () => Promise<DemoClient>;
  connections: DemoConnections;
  plan: DemoPlan;
  save: () => Promise<void>;
}

const data = (a: Answer) => (a.body.data ?? {}) as Record<string, unknown>;
const orgOf = (ctx: Ctx) => ctx.state.orgId!;

type Provider = SyncProvider;
/** A connector's list and sync-now routes, by its answer shape (api/resources/connectors/router.ts). */
const LIST = (provider: Provider, o: string) => (CONNECTORS[provider].answers === 'wrapped' ? `/${provider}/accounts?organization_id=${o}` : `/${provider}?organization_id=${o}`);
const SYNC = (provider: Provider, id: string): [string, string, unknown?] => (CONNECTORS[provider].answers === 'wrapped' ? ['POST', `/${provider}`, { id }] : ['GET', `/${provider}/data?id=${id}`]);

async function accountsOf(client: DemoClient, provider: Provider, orgId: string): Promise<{ id: string; status?: string; last_synced?: string | null }[]> {
  const d = data(await client.get(LIST(provider, orgId)));
  const list = (CONNECTORS[provider].answers === 'wrapped' ? d.accounts : (d.accounts ?? d.data ?? d)) as unknown;
  return Array.isArray(list) ? (list as { id: string }[]) : [];
}

/** Syncs each account of the provider and waits until its latest run succeeded. */
async function syncAll(ctx: Ctx, provider: Provider): Promise<void> {
  const client = await ctx.user();
  const accounts = await accountsOf(client, provider, orgOf(ctx));
  if (!accounts.length) throw new Error(`no ${provider} connection to sync`);
  for (const a of accounts) {
    const [method, path, body] = SYNC(provider, a.id);
    await client.call(method, path, body);
    const run = await until(
      `the ${provider} sync`,
      async () => {
        const runs = (data(await client.get(`/${provider}/sync-runs?id=${a.id}&limit=1`)).runs ?? []) as { status: string; error: string | null }[];
        const last = runs[0];
        return last && last.status !== 'running' ? last : undefined;
      },
      20 * 60_000,
      1500,
    );
    if (run.status !== 'succeeded') throw new Error(`the ${provider} sync failed: ${run.error ?? run.status}`);
  }
}

const STEPS: Step[] = [
  {
    name: 'organization',
    label: 'creating the organization',
    run: async (ctx) => {
      const created = await ctx.admin.post('/organization/add', {
        organizationName: DEMO_ORGANIZATION_NAME,
        organizationEmail: DEMO_EMAIL,
        organizationPhoneNumber: '5550100100',
        organizationAddress: '1 Demo Street, Springfield',
        organizationDescription: 'Demo: a US parent (QuickBooks Online), a UK subsidiary (Sage Intacct), a German subsidiary owned 80 % and a Canadian one (NetSuite), an Australian one (Xero), all simulated. Remove it from Organizations when you no longer need it.',
      });
      const org = (data(created).createdOrganization ?? data(created).organization ?? data(created)) as { id?: string; _id?: string };
      ctx.state.orgId = String(org.id ?? org._id);
      await Organization.updateOne({ _id: ctx.state.orgId }, { $set: { demo: true } });
    },
  },
  {
    name: 'user',
    label: `creating the demo user ${DEMO_EMAIL}`,
    run: async (ctx) => {
      const password = generatePassword();
      const existing = await User.findOne({ email: DEMO_EMAIL }).lean<UserDoc>();
      if (existing) throw new Error(`a user ${DEMO_EMAIL} already exists: remove it, or set DEMO=false`);
      const created = await ctx.admin.post('/user', { fullName: 'Dana Demo', email: DEMO_EMAIL, phoneNumber: '5550100101', role: 'user', organization_id: orgOf(ctx), password, confirmPassword: password });
      const user = (data(created).user ?? data(created)) as { id?: string; _id?: string };
      ctx.state.userId = String(user.id ?? user._id ?? '');
      ctx.state.passwordEnc = encryptSecret(password, ctx.cfg.ENCRYPTION_KEY);
    },
  },
  {
    name: 'onboarding',
    label: 'onboarding (storage container, SQL database, data factory, template import)',
    run: async (ctx) => {
      // Names are lowercase letters only (the local provider's rule): the id's last hex digits as letters.
      const suffix = orgOf(ctx)
        .slice(-6)
        .replace(/[0-9]/g, (d) => String.fromCharCode(97 + Number(d)));
      await ctx.admin.post('/onboard/start', { orgID: orgOf(ctx), containerName: `ledgerflowdemo${suffix}`, databaseName: `ledgerflowdemo${suffix}`, dataFactoryName: `ledgerflowdemo${suffix}` });
      const status = await until(
        'onboarding',
        async () => {
          const s = data(await ctx.admin.get(`/onboard/status/${orgOf(ctx)}`)).status as string;
          return s === 'running' ? undefined : s;
        },
        10 * 60_000,
      );
      if (status !== 'completed') throw new Error(`onboarding ended ${status}`);
    },
  },
  {
    name: 'quickbooks',
    label: 'connecting QuickBooks Online (OAuth consent and code exchange)',
    run: async (ctx) => {
      const client = await ctx.user();
      if ((await accountsOf(client, 'quickbooks', orgOf(ctx))).length) return;
      const { authorizeUrl } = data(await client.get(`/quickbooks/connect?organization_id=${orgOf(ctx)}`)) as { authorizeUrl: string };
      // The browser's part: Intuit's consent page redirects back with a code, the state and the company.
      const consent = new URL(authorizeUrl);
      consent.searchParams.set('realmId', ctx.connections.quickbooks.realmId);
      const res = await fetch(consent, { redirect: 'manual' });
      const location = res.headers.get('location');
      if (res.status !== 302 || !location) throw new Error(`the QuickBooks consent page answered ${res.status}`);
      const back = new URL(location).searchParams;
      await client.post('/quickbooks/token-exchange', { code: back.get('code'), state: back.get('state'), realmId: back.get('realmId') });
    },
  },
  {
    name: 'sage',
    label: 'connecting Sage Intacct (XML API session)',
    run: async (ctx) => {
      const client = await ctx.user();
      if ((await accountsOf(client, 'sage', orgOf(ctx))).length) return;
      const s = ctx.connections.sage;
      await client.post('/sage', { sageUserID: s.userId, sageUserPassword: s.userPassword, sageSenderID: s.senderId, sageSenderPassword: s.senderPassword, sageCompanyID: s.companyId, organization_id: orgOf(ctx) });
    },
  },
  {
    name: 'netsuite',
    label: 'connecting NetSuite (OAuth 2.0 client credentials, signed JWT)',
    run: async (ctx) => {
      const client = await ctx.user();
      if ((await accountsOf(client, 'netsuite', orgOf(ctx))).length) return;
      const n = ctx.connections.netsuite;
      await client.post('/netsuite', { accountId: n.accountId, clientId: n.clientId, certificateId: n.certificateId, privateKey: readFileSync(n.keyFile, 'utf8'), organization_id: orgOf(ctx) });
    },
  },
  {
    name: 'xero',
    label: 'connecting Xero (OAuth consent, code exchange, the Australian organisation picked)',
    run: async (ctx) => {
      const client = await ctx.user();
      if ((await accountsOf(client, 'xero', orgOf(ctx))).length) return;
      const entity = ctx.plan.entities.find((e) => e.source === 'xero');
      if (!entity) throw new Error('the demo plan has no Xero entity');
      const { authorizeUrl } = data(await client.get(`/xero/connect?organization_id=${orgOf(ctx)}`)) as { authorizeUrl: string };
      // The browser's part: Xero's consent redirects back with a code and the state.
      const res = await fetch(authorizeUrl, { redirect: 'manual' });
      const location = res.headers.get('location');
      if (res.status !== 302 || !location) throw new Error(`the Xero consent page answered ${res.status}`);
      const back = new URL(location).searchParams;
      const grant = data(await client.post('/xero/token-exchange', { code: back.get('code'), state: back.get('state') })) as { grantId: string; organisations: { tenantId: string }[] };
      if (!grant.organisations.some((o) => o.tenantId === entity.entityKey)) throw new Error(`Xero did not grant ${entity.name}`);
      // The user's pick: the group's subsidiary, not the other organisation the consent granted.
      await client.post('/xero/link', { grantId: grant.grantId, tenantIds: [entity.entityKey] });
    },
  },
  { name: 'sync-quickbooks', label: 'syncing QuickBooks (25 months)', run: (ctx) => syncAll(ctx, 'quickbooks') },
  { name: 'sync-sage', label: 'syncing Sage Intacct (25 months)', run: (ctx) => syncAll(ctx, 'sage') },
  { name: 'sync-netsuite', label: 'syncing NetSuite (25 months)', run: (ctx) => syncAll(ctx, 'netsuite') },
  { name: 'sync-xero', label: 'syncing Xero (25 months)', run: (ctx) => syncAll(ctx, 'xero') },
  {
    name: 'budget',
    label: 'saving the budget CSV as the table "budget"',
    run: async (ctx) => {
      const client = await ctx.user();
      const form = new FormData();
      form.set('orgID', orgOf(ctx));
      form.set('tableName', 'budget');
      form.set('file', new Blob([ctx.plan.budgetCsv], { type: 'text/csv' }), 'budget.csv');
      const saved = await client.call('POST', '/pipeline/saveCSV', form);
      if (saved.status === 202) {
        const uploadId = String(data(saved).uploadId ?? '');
        await until('saving the budget', async () => {
          const s = await client.call('GET', `/pipeline/saveCSV/${uploadId}`, undefined, { ok: [200, 202] });
          return s.status === 200 ? true : undefined;
        }, 5 * 60_000);
      }
    },
  },
  {
    name: 'pipelines',
    label: 'running the pipelines (trial_balance from every source)',
    run: async (ctx) => {
      const client = await ctx.user();
      const first = await client.get(`/pipeline/run-pipeline/${orgOf(ctx)}?wait=true`);
      const run = (data(first).run ?? {}) as { runId?: string; status?: string };
      let status = run.status;
      if (first.status === 202 && run.runId) {
        status = await until(
          'the pipelines',
          async () => {
            const r = (data(await client.get(`/pipeline/runs/${orgOf(ctx)}/${run.runId}`)).run ?? {}) as { status?: string };
            return r.status === 'running' ? undefined : r.status;
          },
          15 * 60_000,
        );
      }
      if (status !== 'succeeded') throw new Error(`the pipeline run ended ${status ?? first.body.message}`);
    },
  },
  {
    name: 'group',
    label: 'setting the group up (entities, ownership, mappings, intercompany, rates, acquisitions)',
    run: async (ctx) => {
      const client = await ctx.user();
      const org = orgOf(ctx);
      const p = ctx.plan;
      await client.put(`/consolidation/${org}/settings`, p.settings);
      const overview = data(await client.get(`/consolidation/${org}`));
      const present = (overview.entities ?? []) as { entity: string; source: string | null; currency: string | null; basis: string }[];
      const keyOf = new Map<DemoRole, string>(p.entities.map((e) => [e.role, e.entityKey]));
      for (const e of p.entities) {
        const found = present.find((x) => x.entity === e.entityKey);
        if (!found) throw new Error(`${e.name} (${e.source} ${e.entityKey}) is not in trial_balance: did its sync bring rows?`);
        await client.put(`/consolidation/${org}/entities/${encodeURIComponent(e.entityKey)}`, { name: e.name, currency: e.currency, ownership: e.ownership, parent: e.parentRole ? keyOf.get(e.parentRole)! : null, included: true, basis: found.basis });
      }
      // Only accounts with postings are in trial_balance (NetSuite's retained earnings, say, never
      // is: its books close the year virtually); every one of those is in the plan.
      const posted = new Set<string>();
      for (const e of p.entities) {
        const listed = data(await client.get(`/consolidation/${org}/mappings?entity=${encodeURIComponent(e.entityKey)}&pageSize=500`)).mappings as { sourceAccount: string }[];
        for (const m of listed) posted.add(`${e.entityKey}\u0000${m.sourceAccount}`);
        const unknown = listed.filter((m) => !e.accounts.some((a) => a.code === m.sourceAccount)).map((m) => m.sourceAccount);
        if (unknown.length) throw new Error(`${e.name} has accounts the demo does not map: ${unknown.join(', ')}`);
      }
      const mappings = p.entities.flatMap((e) =>
        e.accounts.filter((a) => posted.has(`${e.entityKey}\u0000${a.code}`)).map((a) => ({ entity: keyOf.get(e.role)!, sourceAccount: a.code, groupAccount: a.groupAccount, icCounterparty: a.icCounterpartyRole ? keyOf.get(a.icCounterpartyRole)! : null, icCategory: a.icCategory ?? null })),
      );
      await client.put(`/consolidation/${org}/mappings`, { mappings });
      if (p.ratesCsv) await client.call('POST', `/consolidation/${org}/rates/import`, p.ratesCsv, { contentType: 'text/csv' });
      if (p.historicalRates.length) await client.put(`/consolidation/${org}/historical-rates`, { rates: p.historicalRates.map((h) => ({ entity: keyOf.get(h.role)!, groupAccount: h.groupAccount, rate: h.rate })) });
      // DE is an acquisition: goodwill, its intangible at fair value, NCI at its share.
      for (const a of p.acquisitions) {
        const { role, ...body } = a;
        await client.put(`/consolidation/${org}/acquisitions/${encodeURIComponent(keyOf.get(role)!)}`, body);
      }
    },
  },
  {
    // One consolidation journal (issue 29): a bonus accrual the subsidiaries did not book, at
    // group level in the last month, auto-reversing (the payroll books it the month after).
    name: 'journal',
    label: 'booking a consolidation journal',
    run: async (ctx) => {
      const client = await ctx.user();
      const org = orgOf(ctx);
      const period = ctx.plan.months[ctx.plan.months.length - 1]!;
      const reference = 'DEMO-ACCRUAL-1';
      const listed = (data(await client.get(`/consolidation/${org}/journals`)).journals ?? []) as { id: string; reference: string; status: string }[];
      let journal = listed.find((j) => j.reference === reference);
      if (!journal) {
        const lines = [
          { account: '6100', debit: '12000.00', credit: '', memo: 'Group bonus pool, not in the entities\' books' },
          { account: '2100', debit: '', credit: '12000.00', memo: 'Accrued bonus' },
        ];
        const made = await client.post(`/consolidation/${org}/journals`, { reference, period, level: 'group', kind: 'reversing', memo: 'Year-end bonus accrual', lines });
        if (made.status !== 201) throw new Error(`the demo journal was refused: ${String(made.body.message)}`);
        journal = data(made) as { id: string; reference: string; status: string };
      }
      if (journal.status === 'draft') {
        const posted = await client.post(`/consolidation/${org}/journals/${journal.id}/submit`, {});
        if (posted.status !== 200) throw new Error(`the demo journal did not post: ${String(posted.body.message)}`);
      }
    },
  },
  {
    // The budget workbook (business unit, month, group account, amount in the unit's currency)
    // mapped as the reports take a budget: each business unit's lines on its group accounts.
    name: 'budget-mapped',
    label: `mapping the budget for budget vs actual ("${DEMO_BUDGET_NAME}")`,
    run: async (ctx) => {
      const client = await ctx.user();
      const org = orgOf(ctx);
      const listed = (data(await client.get(`/reports/${org}/budgets`)).budgets ?? []) as { name: string }[];
      if (listed.some((b) => b.name === DEMO_BUDGET_NAME)) return;
      await client.call('POST', `/reports/${org}/budgets/import?name=${encodeURIComponent(DEMO_BUDGET_NAME)}`, budgetForReports(ctx.plan.budgetCsv), { contentType: 'text/csv' });
    },
  },
  {
    name: 'consolidation',
    label: 'consolidating the 24 months and the month in progress',
    run: async (ctx) => {
      const client = await ctx.user();
      // The month in progress has its rates (the plan's), so it is consolidated and shown as in progress, not blocked.
      const to = ctx.plan.monthInProgress ?? ctx.plan.months[ctx.plan.months.length - 1];
      const ran = data(await client.post(`/consolidation/${orgOf(ctx)}/run?wait=true`, { from: ctx.plan.months[0], to }));
      if (Number(ran.blocked ?? 0) > 0) throw new Error(`${String(ran.blocked)} month(s) blocked: ${JSON.stringify(ran.messages ?? ran).slice(0, 300)}`);
    },
  },
  {
    // A report pack (issue 34): every built-in statement for the month, to the demo user, on the
    // 5th working day of the month (a Temporal schedule), so the getting-started checklist's step 8 is done.
    name: 'pack',
    label: 'scheduling the monthly report pack',
    run: async (ctx) => {
      const client = await ctx.user();
      const org = orgOf(ctx);
      const name = 'Monthly board pack';
      const packs = (data(await client.get(`/reports/${org}/packs`)).packs ?? []) as { name: string }[];
      if (packs.some((p) => p.name === name)) return;
      const options = data(await client.get(`/reports/${org}/packs/options`)) as { statements: { ref: string }[]; users: { id: string; email: string }[] };
      const me = options.users.find((u) => u.email === DEMO_EMAIL);
      if (!me) throw new Error(`the demo user ${DEMO_EMAIL} is not among the organization's users`);
      const made = await client.post(`/reports/${org}/packs`, { name, items: options.statements.map((st) => ({ kind: 'statement', ref: st.ref })), range: 'month', period: null, recipients: [me.id], schedule: { kind: 'working-day', day: 5 } });
      if (made.status !== 201) throw new Error(`the demo pack was refused: ${String(made.body.message)}`);
    },
  },
];

const ATTEMPTS = 3;


/**
 * Seeds the demo (or resumes it), then prints how to sign in. Runs beside the api's own work; a
 * failure is logged with its fix and leaves the api serving.
 */
export async function runDemo(cfg: Config, baseUrl: string, connections: DemoConnections, options: { plan?: DemoPlan } = {}): Promise<SeedState | null> {
  if (await getAppSetting(DEMO_REMOVED)) {
    say('the demo organization was removed by an admin: it is not created again.');
    return null;
  }
  let state = ((await getAppSetting(DEMO_SEED)) as SeedState | null) ?? null;
  if (state?.orgId && !(await Organization.exists({ _id: state.orgId }))) {
    // Removed some other way than the delete route: treat as removed.
    say('the demo organization no longer exists: it is not created again.');
    return null;
  }
  if (state?.status === 'ready') {
    printSignIn(cfg, baseUrl, state);
    await setDemoTrigger(cfg, baseUrl, state, connections);
    return state;
  }
  const plan = options.plan ?? readDemoPlan(connections.planFile);
  state ??= { done: [], status: 'seeding', startedAt: new Date().toISOString() };
  state.status = 'seeding';
  delete state.error;
  const save = async () => setAppSetting(DEMO_SEED, { ...state! });
  await save();

  const adminUser = await User.findOne({ role: 'admin' }).lean<UserDoc>();
  if (!adminUser) throw new Error('no admin user');
  const admin = new DemoClient(baseUrl, signToken(adminUser, cfg));
  let userClient: DemoClient | null = null;
  const ctx: Ctx = {
    cfg,
    state,
    admin,
    connections,
    plan,
    save,
    user: async () => {
      if (userClient) return userClient;
      userClient = await signInDemoUser(cfg, baseUrl, state!);
      return userClient;
    },
  };

  const started = Date.now();
  say(state.done.length ? `resuming the demo organization (${state.done.length} of ${STEPS.length} steps done) ...` : `creating the demo organization "${DEMO_ORGANIZATION_NAME}" (DEMO=false skips it) ...`);
  for (const [i, step] of STEPS.entries()) {
    if (state.done.includes(step.name)) continue;
    say(`${i + 1}/${STEPS.length} ${step.label} ...`);
    for (let attempt = 1; ; attempt++) {
      try {
        await step.run(ctx);
        break;
      } catch (e) {
        const message = e instanceof Error ? e.message : String(e);
        if (attempt >= ATTEMPTS) {
          state.status = 'failed';
          state.error = `${step.label}: ${message}`;
          await save();
          say(`failed while ${step.label}: ${message}`);
          say('the next start resumes from this step; DEMO=false skips the demo. Logs: the api and worker logs under the data folder.');
          logger.error({ step: step.name, err: message }, 'demo organization not completed');
          return state;
        }
        logger.warn({ step: step.name, attempt, err: message }, 'demo step failed; retrying');
        await sleep(2000 * attempt);
      }
    }
    state.done.push(step.name);
    await save();
  }
  state.status = 'ready';
  state.readyAt = new Date().toISOString();
  state.seconds = Math.round((Date.now() - started) / 100) / 10;
  await save();
  say(`ready in ${state.seconds} s.`);
  printSignIn(cfg, baseUrl, state);
  await setDemoTrigger(cfg, baseUrl, state, connections);
  return state;
}

/** The demo user's client, signed in through the api. */
async function signInDemoUser(cfg: Config, baseUrl: string, state: SeedState): Promise<DemoClient> {
  const password = decryptSecret(state.passwordEnc!, cfg.ENCRYPTION_KEY);
  const signed = data(await new DemoClient(baseUrl).post('/auth/login', { email: DEMO_EMAIL, password }));
  return new DemoClient(baseUrl, String(signed.token));
}

/**
 * On every start of a ready demo: the Sage Intacct simulator's platform trigger for the demo's
 * Sage connection (the simulator forgets it when it stops), its secret asked of the api by the
 * demo user. Never fails the start: a failure is said with the manual way.
 */
async function setDemoTrigger(cfg: Config, baseUrl: string, state: SeedState, connections: DemoConnections): Promise<void> {
  const sage = connections.sage;
  if (!sage?.triggerUrl || !state.orgId) return;
  try {
    const armed = await armSageTrigger(await signInDemoUser(cfg, baseUrl, state), state.orgId, baseUrl, { companyId: sage.companyId, triggerUrl: sage.triggerUrl });
    if (armed.length) say('Sage Intacct platform trigger set: `npm run demo:change -- --source sage` reaches the reports through it.');
  } catch (e) {
    const message = e instanceof Error ? e.message : String(e);
    logger.warn({ err: message }, 'demo Sage Intacct trigger not set');
    say(`the Sage Intacct platform trigger was not set (${message}): docs/operations.md#source-webhooks sets it by hand.`);
  }
}

function printSignIn(cfg: Config, baseUrl: string, state: SeedState): void {
  const password = state.passwordEnc ? decryptSecret(state.passwordEnc, cfg.ENCRYPTION_KEY) : '(unknown)';
  say(`demo organization "${DEMO_ORGANIZATION_NAME}": open ${cfg.PUBLIC_URL || baseUrl} and sign in as ${DEMO_EMAIL} with password ${password}`);
  say('  then Apps (the connections), Reports (consolidated statements; click a figure to drill down), Dashboard and Data.');
}
