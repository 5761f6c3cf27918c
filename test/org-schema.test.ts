// The product's tables of an organization's database (issue 32, "A GET writes"): onboarding
// creates them with the default group chart, the worker's start-up migration creates them in a
// database provisioned before that (idempotent, one organization's failure stopping none of the
// others), and the GETs of the consolidation and reports read without writing, also on a
// database the migration has not reached yet. The T-SQL of the schema is compiled and checked
// (no SQL Server here).
import Database from 'better-sqlite3';
import { existsSync, mkdirSync, statSync } from 'node:fs';
import request from 'supertest';
import { DEFAULT_GROUP_CHART } from '../common/consolidation/default-chart';
import { Organization } from '../common/models/organization';
import { localDatabaseFile } from '../warehouse/connection';
import { chartDdl, consolidationSchemaDdl } from '../warehouse/consolidation/store';
import { asCreatedSelect, migrateOrganizationSchemas, PRODUCT_OBJECTS } from '../warehouse/org-schema';
import { reportsSchemaDdl } from '../warehouse/reports/store';
import { startStack, type TestStack } from './helpers/stack';
import { tsqlCompileOnly } from './helpers/tsql';
import { userWithToken } from './helpers/users';
import { waitFor } from './helpers/wait';

let stack: TestStack;
let token: string;
const uniq = (p: string) => `${p}${Math.random().toString(36).replace(/[^a-z]/g, '').slice(0, 8)}`;
const get = (path: string) => request(stack.app).get(`/api/v1${path}`).set('Authorization', `Bearer ${token}`);

beforeAll(async () => {
  stack = await startStack();
  ({ token } = await userWithToken(stack.app, { email: 'schema-admin@example.com', role: 'admin', fullName: 'Sam Schema' }));
}, 60_000);
afterAll(() => stack.stop());

const fileOf = (databaseName: string) => localDatabaseFile(stack.config.WAREHOUSE_DIR, databaseName);

/** An organization onboarded through the api (all four steps, on the worker). */
async function onboarded(name: string): Promise<{ orgID: string; databaseName: string }> {
  const org = await Organization.create({ organizationName: name });
  const orgID = String(org._id);
  const body = { orgID, containerName: uniq('sch'), databaseName: uniq('schdb'), dataFactoryName: uniq('schf') };
  expect((await request(stack.app).post('/api/v1/onboard/start').set('Authorization', `Bearer ${token}`).send(body)).status).toBe(202);
  await waitFor('onboarding', async () => (await get(`/onboard/status/${orgID}`)).body.data.status === 'completed', 90_000, 250);
  return { orgID, databaseName: body.databaseName };
}

/** An organization whose database was provisioned the way earlier versions did: the owner row only. */
async function provisionedTheOldWay(name: string, sql = ''): Promise<{ orgID: string; databaseName: string }> {
  const org = await Organization.create({ organizationName: name });
  const orgID = String(org._id);
  const databaseName = uniq('olddb');
  mkdirSync(stack.config.WAREHOUSE_DIR, { recursive: true });
  const db = new Database(fileOf(databaseName));
  db.exec('create table _ledgerflow_meta (key text primary key, value text not null)');
  db.prepare('insert into _ledgerflow_meta (key, value) values (?, ?)').run('organization_id', orgID);
  if (sql) db.exec(sql);
  db.close();
  await Organization.updateOne({ _id: orgID }, { $set: { 'onboarding.databaseName': databaseName } });
  return { orgID, databaseName };
}

/**
 * Everything that tells a write happened, read through a connection of its own opened before:
 * its data_version (changes when any other connection commits to the file), the schema, each
 * table's rows, and the files' sizes and modification times.
 */
function watch(file: string) {
  const db = new Database(file, { readonly: true });
  const files = () => ['', '-wal'].map((s) => (existsSync(file + s) ? [s, statSync(file + s).size, statSync(file + s).mtimeMs] : [s, null]));
  const snapshot = () => {
    const schema = db.prepare("select type, name, sql from sqlite_master order by name").all() as { type: string; name: string }[];
    const counts = schema.filter((o) => o.type === 'table').map((t) => [t.name, (db.prepare(`select count(*) as n from "${t.name}"`).get() as { n: number }).n]);
    return { dataVersion: db.pragma('data_version', { simple: true }), schema, counts, files: files() };
  };
  return { snapshot, close: () => db.close() };
}

const objectsOf = (file: string) => {
  const db = new Database(file, { readonly: true });
  try {
    return (db.prepare('select name from sqlite_master where type in (\'table\', \'view\')').all() as { name: string }[]).map((r) => r.name);
  } finally {
    db.close();
  }
};
const chartOf = (file: string) => {
  const db = new Database(file, { readonly: true });
  try {
    return db.prepare('select code, name, type, line, role from group_accounts order by sort, code').all();
  } finally {
    db.close();
  }
};
const defaultChart = DEFAULT_GROUP_CHART.map((a) => ({ code: a.code, name: a.name, type: a.type, line: a.line, role: a.role }));

/** The GETs of the consolidation and reports pages (their answers, by path). */
const READS = (orgID: string) => [
  `/consolidation/${orgID}`,
  `/consolidation/${orgID}/accounts`,
  `/consolidation/${orgID}/mappings`,
  `/consolidation/${orgID}/rates`,
  `/consolidation/${orgID}/historical-rates`,
  `/consolidation/${orgID}/results?period=2026-01`,
  `/reports/${orgID}/custom`,
  `/reports/${orgID}/statements/trial-balance?period=2026-01&columns=entities,eliminations,nci,consolidated`,
  `/reports/${orgID}/statements/balance-sheet?period=2026-01&range=ytd&compare=prior`,
  `/reports/${orgID}/overview?to=2026-01`,
  `/reports/${orgID}/drilldown?period=2026-01&groupAccount=1000`,
];
async function answers(orgID: string) {
  const out: Record<string, unknown> = {};
  for (const path of READS(orgID)) {
    const res = await get(path);
    out[path.replace(orgID, ':org')] = [res.status, res.body];
  }
  return out;
}

describe('onboarding', () => {
  it('creates the consolidation and reports tables and the 40-row default group chart', async () => {
    const { databaseName } = await onboarded('Fresh Co');
    const file = fileOf(databaseName);
    expect(objectsOf(file)).toEqual(expect.arrayContaining([...PRODUCT_OBJECTS]));
    expect(chartOf(file)).toHaveLength(40);
    expect(chartOf(file)).toEqual(defaultChart);
  }, 120_000);
});

describe('the GETs of the consolidation and reports', () => {
  it('change nothing in a freshly onboarded organization’s database', async () => {
    const { orgID, databaseName } = await onboarded('Read Co');
    const w = watch(fileOf(databaseName));
    try {
      const before = w.snapshot();
      expect((await get(`/consolidation/${orgID}`)).status).toBe(200);
      expect((await get(`/reports/${orgID}/custom`)).status).toBe(200);
      for (const path of READS(orgID)) await get(path);
      expect(w.snapshot()).toEqual(before);
    } finally {
      w.close();
    }
  }, 120_000);

  it('read a database the migration has not reached as it will be once migrated, without writing to it', async () => {
    const fresh = await onboarded('Migrated Co');
    const old = await provisionedTheOldWay('Old Co');
    const w = watch(fileOf(old.databaseName));
    try {
      const before = w.snapshot();
      const seen = await answers(old.orgID);
      expect(w.snapshot()).toEqual(before);
      // The same answers as an organization onboarded now: the default chart, nothing else configured.
      expect(seen).toEqual(await answers(fresh.orgID));
      const overview = (seen[`/consolidation/:org`] as [number, { data: { settings: { configured: boolean }; entities: unknown[]; accounts: unknown[] } }])[1].data;
      expect(overview.settings.configured).toBe(false);
      expect(overview.entities).toEqual([]);
      expect(overview.accounts).toEqual(DEFAULT_GROUP_CHART.map((a) => ({ ...a, rateType: null, cashFlow: a.cashFlow ?? null })));
      expect(seen[`/reports/:org/custom`]).toEqual([200, expect.objectContaining({ data: { reports: [] } })]);
      expect(seen[`/consolidation/:org/results?period=2026-01`]).toEqual([404, expect.objectContaining({ message: 'No consolidation for 2026-01 yet: run the consolidation first' })]);
    } finally {
      w.close();
    }
    // A write still works there: it makes the tables first.
    const put = await request(stack.app).put(`/api/v1/consolidation/${old.orgID}/settings`).set('Authorization', `Bearer ${token}`).send({ presentationCurrency: 'EUR', method: 'full', toleranceAmount: '0', tolerancePct: '0', fiscalYearStartMonth: 1 });
    expect(put.status).toBe(200);
    expect(objectsOf(fileOf(old.databaseName))).toEqual(expect.arrayContaining(['group_accounts', 'group_settings']));
    expect(chartOf(fileOf(old.databaseName))).toEqual(defaultChart);
  }, 180_000);

  it('show the trial balance’s entities and accounts before the migration as a change will configure them, without writing', async () => {
    const old = await provisionedTheOldWay(
      'Old Books Co',
      `create table trial_balance (entity text not null, source text not null, period text not null, account_code text not null, account_name text, account_type text, debit real not null default 0, credit real not null default 0, net real not null default 0, currency text);
       insert into trial_balance (entity, source, period, account_code, account_name, account_type, net, currency) values
         ('P', 'csv:ledger', '2026-01', '1000', 'Cash', 'asset', 100, 'USD'),
         ('S', 'csv:ledger', '2026-01', '1000', 'Cash', 'asset', 50, 'EUR'),
         ('S', 'csv:ledger', '2026-01', '4000', 'Sales', 'income', -50, 'EUR');`,
    );
    const w = watch(fileOf(old.databaseName));
    let overview: { entities: unknown[] };
    let mappings: { total: number; unmapped: number; mappings: { suggestion: unknown }[] };
    try {
      const before = w.snapshot();
      overview = (await get(`/consolidation/${old.orgID}`)).body.data;
      mappings = (await get(`/consolidation/${old.orgID}/mappings`)).body.data;
      expect(w.snapshot()).toEqual(before);
    } finally {
      w.close();
    }
    expect(mappings.total).toBe(3);
    expect(mappings.unmapped).toBe(3);
    expect(mappings.mappings[0]!.suggestion).toEqual({ groupAccount: '1000', groupAccountName: 'Cash and cash equivalents', reason: 'same code and type', confidence: 'high' });
    // A change configures them (tables made, entities synced): the same entities the read showed.
    const put = await request(stack.app).put(`/api/v1/consolidation/${old.orgID}/entities/S`).set('Authorization', `Bearer ${token}`).send({ name: 'CSV ledger S', currency: 'EUR', ownership: '100', parent: null, included: true, basis: 'balances' });
    expect(put.status).toBe(200);
    expect((await get(`/consolidation/${old.orgID}`)).body.data.entities).toEqual(overview.entities);
    expect(overview.entities).toEqual([
      { entity: 'P', name: 'CSV ledger P', currency: 'USD', ownership: '100', parent: null, included: true, basis: 'balances', source: 'csv:ledger', remeasure: false },
      { entity: 'S', name: 'CSV ledger S', currency: 'EUR', ownership: '100', parent: null, included: true, basis: 'balances', source: 'csv:ledger', remeasure: false },
    ]);
  }, 120_000);
});

describe("the worker's start-up migration", () => {
  it('creates the tables in databases provisioned the old way, keeps a chart its users changed, and is idempotent', async () => {
    const bare = await provisionedTheOldWay('Bare Co');
    // An earlier version's partial schema: a chart of its own, the entity columns kept as a table.
    const partial = await provisionedTheOldWay(
      'Partial Co',
      `create table group_accounts (code text not null, name text not null, type text not null, line text not null, role text, sort integer not null, constraint group_accounts_pk primary key (code));
       insert into group_accounts values ('1', 'Cash', 'asset', 'Assets', null, 0);
       create table consolidated_trial_balance_entities (period text, group_account text, entity text, amount_cents integer);`,
    );
    // Named by its record, but its file is gone: logged, the others go on.
    const gone = await Organization.create({ organizationName: 'Gone Co', onboarding: { databaseName: uniq('gonedb') } });

    const first = await migrateOrganizationSchemas(stack.config);
    expect(first.failed).toBe(1);
    expect(first.migrated).toBeGreaterThanOrEqual(2);
    for (const { databaseName } of [bare, partial]) expect(objectsOf(fileOf(databaseName))).toEqual(expect.arrayContaining([...PRODUCT_OBJECTS]));
    expect(chartOf(fileOf(bare.databaseName))).toEqual(defaultChart);
    expect(chartOf(fileOf(partial.databaseName))).toEqual([{ code: '1', name: 'Cash', type: 'asset', line: 'Assets', role: null }]);
    const views = new Database(fileOf(partial.databaseName), { readonly: true });
    expect(views.prepare("select type from sqlite_master where name = 'consolidated_trial_balance_entities'").get()).toEqual({ type: 'view' });
    views.close();
    expect(existsSync(fileOf(String(gone.onboarding?.databaseName)))).toBe(false);

    // Again: every database found current, nothing written.
    const watched = [bare, partial].map(({ databaseName }) => watch(fileOf(databaseName)));
    try {
      const before = watched.map((w) => w.snapshot());
      const second = await migrateOrganizationSchemas(stack.config);
      expect(second).toEqual({ migrated: 0, current: first.migrated + first.current, failed: 1 });
      expect(watched.map((w) => w.snapshot())).toEqual(before);
    } finally {
      for (const w of watched) w.close();
    }
  }, 180_000);
});

describe('the schema on Azure SQL (T-SQL compiled, not run: no SQL Server here)', () => {
  const db = tsqlCompileOnly();

  it('creates each table, index and the view behind T-SQL existence guards, with T-SQL types', () => {
    const ddl = consolidationSchemaDdl(db, 'mssql');
    expect(ddl[0]).toBe(
      `if object_id(N'dbo.group_settings', N'U') is null create table "group_settings" ("key" nvarchar(200) not null, "value" nvarchar(400) not null, "updated_by" nvarchar(400), "updated_at" nvarchar(200), constraint "group_settings_pk" primary key ("key"))`,
    );
    expect(ddl).toContain(`if not exists (select 1 from sys.indexes where name = N'consolidated_trial_balance_ix0' and object_id = object_id(N'dbo.consolidated_trial_balance')) create index "consolidated_trial_balance_ix0" on "consolidated_trial_balance" ("period", "group_account")`);
    expect(ddl.filter((s) => s.includes('create table')).every((s) => /^if object_id\(N'dbo\.(\w+)', N'U'\) is null create table "\1" \(/.test(s))).toBe(true);
    expect(ddl.filter((s) => s.includes('create index')).every((s) => /^if not exists \(select 1 from sys\.indexes where name = N'(\w+)' and object_id = object_id\(N'dbo\.(\w+)'\)\) create index "\1" on "\2" /.test(s))).toBe(true);
    expect(ddl.some((s) => s.includes('"group_accounts" ('))).toBe(false);
    expect(ddl.filter((s) => s.includes('create table'))).toHaveLength(18);
    // The view: its own batch through exec, its quotes doubled, amounts summed as exact cents.
    expect(ddl.at(-1)).toMatch(/^if object_id\(N'dbo\.consolidated_trial_balance_entities', N'V'\) is null exec\(N'create view "consolidated_trial_balance_entities" as select period, group_account, entity, sum\(cents\) as amount_cents from \(/);
    expect(ddl.at(-1)).toContain(`where kind in (''translation'', ''rounding'')`);
    expect(ddl.at(-1)).toContain('cast(round(presentation_amount * 100, 0) as bigint)');
    expect(ddl.at(-1)).toMatch(/'\)$/);
  });

  it('creates the group chart with its 40 default rows in one statement within T-SQL’s limits', () => {
    const { create, seed } = chartDdl(db, 'mssql');
    expect(create).toBe(
      `if object_id(N'dbo.group_accounts', N'U') is null create table "group_accounts" ("code" nvarchar(200) not null, "name" nvarchar(400) not null, "type" nvarchar(200) not null, "line" nvarchar(400) not null, "role" nvarchar(200), "sort" int not null, "rate_type" nvarchar(200), "cash_flow" nvarchar(200), constraint "group_accounts_pk" primary key ("code"))`,
    );
    expect(seed).toHaveLength(1);
    expect(seed[0]!.sql).toMatch(/^insert into "group_accounts" \("code", "name", "type", "line", "role", "sort", "rate_type", "cash_flow"\) values \(@1, @2, @3, @4, @5, @6, @7, @8\), /);
    expect(seed[0]!.parameters).toHaveLength(40 * 8);
    expect(seed[0]!.parameters.slice(0, 8)).toEqual(['1000', 'Cash and cash equivalents', 'asset', 'Assets > Current assets > Cash', null, 0, null, 'cash']);
  });

  it('creates the report layouts table behind its guard', () => {
    expect(reportsSchemaDdl(db, 'mssql')).toEqual([
      `if object_id(N'dbo.report_layouts', N'U') is null create table "report_layouts" ("id" nvarchar(200) primary key, "name" nvarchar(200) not null, "definition" nvarchar(max) not null, "updated_by" nvarchar(200), "updated_at" nvarchar(200))`,
    ]);
  });

  it('reads a missing table as created: typed empty rows, the chart’s default rows as N-literals', () => {
    expect(asCreatedSelect('mssql', 'fx_rates')).toBe(
      `select cast(null as nvarchar(200)) as "currency", cast(null as nvarchar(200)) as "period", cast(null as nvarchar(200)) as "closing", cast(null as nvarchar(200)) as "average", cast(null as nvarchar(200)) as "source", cast(null as nvarchar(400)) as "updated_by", cast(null as nvarchar(200)) as "updated_at", cast(null as nvarchar(200)) as "quote" where 1 = 0`,
    );
    const chart = asCreatedSelect('mssql', 'group_accounts')!;
    expect(chart.split(' union all ')).toHaveLength(40);
    expect(chart.split(' union all ')[0]).toBe(
      `select cast(N'1000' as nvarchar(200)) as "code", cast(N'Cash and cash equivalents' as nvarchar(400)) as "name", cast(N'asset' as nvarchar(200)) as "type", cast(N'Assets > Current assets > Cash' as nvarchar(400)) as "line", cast(null as nvarchar(200)) as "role", cast(0 as int) as "sort", cast(null as nvarchar(200)) as "rate_type", cast(N'cash' as nvarchar(200)) as "cash_flow"`,
    );
    expect(asCreatedSelect('mssql', 'consolidated_trial_balance_entities')).toMatch(/as "amount_cents" where 1 = 0$/);
    expect(asCreatedSelect('mssql', 'report_layouts')).toMatch(/^select cast\(null as nvarchar\(200\)\) as "id", /);
  });
});
