// The product's own tables in an organization's database: the consolidation's settings and
// outputs (with the default group chart) and the report layouts. Created when the database is
// provisioned (./provision.ts), by the worker's start-up migration for databases provisioned
// before that (migrateOrganizationSchemas below), and ensured by the writers before they write.
// Reads never create them: a database not migrated yet is read as it will be once migrated
// (readingAsProvisioned): its missing tables empty, its group chart the default one.
import { AliasNode, FromNode, IdentifierNode, OperationNodeTransformer, RawNode, TableNode, type JoinNode, type KyselyPlugin, type OperationNode, type QueryId } from 'kysely';
import mongoose from 'mongoose';
import type { Config } from '../common/config';
import { DEFAULT_GROUP_CHART } from '../common/consolidation/default-chart';
import { isFailureOf } from '../common/failures';
import { logger } from '../common/logger';
import { Organization } from '../common/models/organization';
import { withOrgDatabase, type OrgDatabase, type OrgDialect } from './connection';
import { DIALECTS } from './dialect';
import { rebuildReportSums, REPORT_SUMS_TABLE } from './consolidation/report-sums';
import { accountRow, CHART_TABLE, CONSOLIDATION_OBJECTS, consolidationColumns, ensureConsolidationSchema } from './consolidation/store';
import { ensureReportsSchema, LAYOUTS_TABLE, layoutColumns } from './reports/store';
import { BUDGET_OBJECTS, budgetColumns, ensureBudgetsSchema } from './reports/budgets';

/** Every table and view of the product's an organization's database has once provisioned. */
export const PRODUCT_OBJECTS: readonly string[] = [...CONSOLIDATION_OBJECTS, LAYOUTS_TABLE, ...BUDGET_OBJECTS];

/** The product's tables and views missing from the database (none once provisioned or migrated). */
export async function missingProductObjects(o: Pick<OrgDatabase, 'db' | 'dialect'>): Promise<string[]> {
  const have = new Set(await DIALECTS[o.dialect].objectNames(o.db));
  return PRODUCT_OBJECTS.filter((n) => !have.has(n));
}

/**
 * Creates what is missing of the product's tables (the default group chart with its table).
 * Idempotent, and harmless when another process does the same at the same time. Answers the
 * tables and views it found missing.
 */
export async function ensureOrgSchema(o: Pick<OrgDatabase, 'db' | 'dialect'>): Promise<string[]> {
  return [...(await ensureConsolidationSchema(o.db, o.dialect)), ...(await ensureReportsSchema(o.db, o.dialect)), ...(await ensureBudgetsSchema(o.db, o.dialect))];
}

// --- reads before the migration -----------------------------------------------------------------

function literal(dialect: OrgDialect, v: unknown): string {
  if (v === null || v === undefined) return 'null';
  if (typeof v === 'number') return String(v);
  return `${dialect === 'mssql' ? 'N' : ''}'${String(v).replace(/'/g, "''")}'`;
}

/** A select of the rows a missing table has once created: none, or the group chart's default rows. */
export function asCreatedSelect(dialect: OrgDialect, table: string): string | undefined {
  const columns = table === LAYOUTS_TABLE ? layoutColumns(dialect) : (budgetColumns(dialect, table) ?? consolidationColumns(dialect, table));
  if (!columns) return undefined;
  const row = (values: unknown[]) => `select ${columns.map(([c, type], i) => `cast(${literal(dialect, values[i])} as ${type}) as "${c}"`).join(', ')}`;
  if (table !== CHART_TABLE) return `${row([])} where 1 = 0`;
  return DEFAULT_GROUP_CHART.map((a, i) => {
    const r = accountRow(a, i) as Record<string, unknown>;
    return row(columns.map(([c]) => r[c]));
  }).join(' union all ');
}

/** Puts a derived table of the rows a missing table has once created where a query reads that table. */
class AsCreated extends OperationNodeTransformer {
  constructor(private readonly selects: Map<string, string>) {
    super();
  }

  private standIn(node: OperationNode): OperationNode | undefined {
    const table = TableNode.is(node) ? node : AliasNode.is(node) && TableNode.is(node.node) ? node.node : undefined;
    if (!table || table.table.schema) return undefined;
    const select = this.selects.get(table.table.identifier.name);
    if (select === undefined) return undefined;
    return AliasNode.create(RawNode.createWithSql(`(${select})`), AliasNode.is(node) ? node.alias : IdentifierNode.create(table.table.identifier.name));
  }

  protected override transformFrom(node: FromNode, queryId?: QueryId): FromNode {
    const from = super.transformFrom(node, queryId);
    return FromNode.create(from.froms.map((f) => this.standIn(f) ?? f));
  }

  protected override transformJoin(node: JoinNode, queryId?: QueryId): JoinNode {
    const join = super.transformJoin(node, queryId);
    const table = this.standIn(join.table);
    return table ? { ...join, table } : join;
  }
}

/**
 * The organization's database for reads only: when product tables are missing (provisioned before
 * they were created at provisioning, and the worker has not migrated it yet), its queries read
 * them as they will be once created (empty; the group chart the default one). Nothing is written.
 */
export async function readingAsProvisioned(o: OrgDatabase): Promise<OrgDatabase> {
  const missing = await missingProductObjects(o);
  if (!missing.length) return o;
  const selects = new Map(missing.map((t) => [t, asCreatedSelect(o.dialect, t)!]));
  const transformer = new AsCreated(selects);
  const plugin: KyselyPlugin = {
    transformQuery: (args) => transformer.transformNode(args.node, args.queryId),
    transformResult: async (args) => args.result,
  };
  return { ...o, db: o.db.withPlugin(plugin) };
}

// --- the worker's start-up migration --------------------------------------------------------------

export interface SchemaMigration {
  /** Databases that lacked some of the tables and have them now. */
  migrated: number;
  /** Databases that had them all. */
  current: number;
  /** Databases that could not be reached or changed, or are not there (logged; the next start tries again). */
  failed: number;
}

/**
 * Creates the product's missing tables in every onboarded organization's database (those
 * provisioned before provisioning created them). Idempotent: a second run finds every database
 * current. One organization's failure is logged and the others go on; `signal` stops it between
 * organizations (the worker shutting down).
 */
export async function migrateOrganizationSchemas(cfg: Config, { signal }: { signal?: AbortSignal } = {}): Promise<SchemaMigration> {
  const out: SchemaMigration = { migrated: 0, current: 0, failed: 0 };
  if (!mongoose.connection.db) throw new Error('Mongo is not connected');
  const orgs = await Organization.find({ 'onboarding.databaseName': { $nin: [null, ''] } }, { 'onboarding.databaseName': 1 }).lean<{ _id: unknown; onboarding?: { databaseName?: string | null } }[]>();
  for (const org of orgs) {
    if (signal?.aborted) break;
    const ref = { orgId: String(org._id), databaseName: org.onboarding!.databaseName! };
    try {
      const created = await withOrgDatabase(cfg, ref, async (o) => {
        // Lock waits off the event loop: the worker's activities keep heartbeating meanwhile.
        await DIALECTS[o.dialect].shortLockWait(o.db);
        const tables = await ensureOrgSchema(o);
        // The statements' sums of an organization consolidated before they were stored (issue 34).
        return (await rebuildReportSums(o)) ? [...tables, REPORT_SUMS_TABLE] : tables;
      });
      if (created.length) {
        out.migrated++;
        logger.info({ orgId: ref.orgId, databaseName: ref.databaseName, created }, 'organization database: product tables created');
      } else out.current++;
    } catch (err) {
      out.failed++;
      // A local file the record names but that is not there (yet): nothing to migrate, nothing read from it either.
      if (isFailureOf(err, 'NotFound')) logger.warn({ orgId: ref.orgId, databaseName: ref.databaseName, reason: (err as Error).message }, 'organization database not migrated');
      else logger.error({ err, orgId: ref.orgId, databaseName: ref.databaseName }, 'organization database not migrated (the next start tries again)');
    }
  }
  if (out.migrated || out.failed) logger.info(out, 'organization databases migrated');
  return out;
}
