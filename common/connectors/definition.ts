// A connector: what LedgerFlow's generic parts need to know about one ledger, in one object.
// From it the api builds the connector's routes (list, connect, status, sync now, history,
// delete; api/resources/connectors/router.ts), the schedule starts its sync workflow, and the
// sync runs find its record; the record and the answer are built by the shared factories
// (common/models/connector-account.ts, common/contract/connections.ts). Only what is really the
// ledger's own lives in its folders: OAuth details, its client, parsing, its sync activities.
import type { Model } from 'mongoose';
import { z } from 'zod';
import type { Config } from '../config';
import type { SyncProvider } from '../contract/connections';
import type { ConnectorAccountDoc } from '../models/connector-account';
import { CONNECTOR_KEYS } from './keys';
import type { OAuth2CodeFlow } from './oauth2-code';
import type { ConnectorTable } from './table';
import type { TrialBalanceSource } from './trial-balance-source';

/**
 * How a connection is authorized: the OAuth 2.0 authorization-code flow (the user consents at
 * the ledger, e.g. QuickBooks); credentials the user types (Sage Intacct); or OAuth 2.0 client
 * credentials with an uploaded certificate key (NetSuite).
 */
export const AUTH_KINDS = ['oauth2-code', 'credentials', 'client-credentials'] as const;
export type AuthKind = (typeof AUTH_KINDS)[number];

/** A connector's record as the generic routes read and write it (its own fields are the connector's). */
export type AccountModel = Model<Omit<ConnectorAccountDoc, '_id'>>;

/**
 * How a connector that takes credentials (typed or uploaded) connects: the api keeps them
 * encrypted on a PendingConnection while the connector's connect workflow checks them with the
 * ledger (the api never calls it), then stores the connection.
 */
export interface CredentialsConnection<F extends z.ZodRawShape = z.ZodRawShape> {
  /** The fields the user fills in, with their rules and messages (organization_id and syncIntervalHours are added). */
  fields: F;
  /** The fields that name one connection within its organization (its unique index). */
  key(input: z.infer<z.ZodObject<F>>): Record<string, string>;
  /** What the connect workflow checks (JSON, encrypted on the pending record). */
  secret(input: z.infer<z.ZodObject<F>>): Record<string, string>;
  /** The connector's own fields to store, secrets encrypted (common/crypto). */
  stored(input: z.infer<z.ZodObject<F>>, cfg: Pick<Config, 'ENCRYPTION_KEY'>): Record<string, unknown>;
}

export interface ConnectorDefinition<K extends SyncProvider = SyncProvider> {
  /** Its name in paths (/api/v1/<key>), sync runs, schedules and workflow ids. */
  key: K;
  /** As the api's messages name its connections: "<displayName> account removed". */
  displayName: string;
  /** The outside system, as messages about it name it ("Sage Intacct did not answer in time"). */
  ledgerName: string;
  auth: AuthKind;
  /** Its connections' records (own fields plus connectorAccountSchema's) and their answer. */
  model: AccountModel;
  answer(account: ConnectorAccountDoc): unknown;
  /** That answer's schema in the shared contract (common/contract/connections.ts connectionAnswerSchema): the api declares its routes' answers with it. */
  answerSchema: z.ZodTypeAny;
  /** Its connection's name as a person knows it, from its answer (the company's name, else the id the ledger gives it): alerts and freshness show it. */
  connectionName(answer: Record<string, unknown>): string | undefined;
  /** Credentials connectors: the connect route is generic. oauth2-code connectors bring their own callback route. */
  connection?: CredentialsConnection;
  /** oauth2-code connectors: the generic flow's settings prefix and scopes (availability, consent URL, code exchange, refresh). */
  oauth2?: OAuth2CodeFlow;
  /** The user's message when the ledger refused the stored credentials (status reconnect_needed); null when it never does. */
  reconnect: string | null;
  /** Why a connection marked reconnect_needed does not sync (its sync fails with this), in the ledger's words. */
  refused: string;
  /**
   * The two answer shapes of spec section 7: 'wrapped' (QuickBooks: GET /accounts -> data.accounts,
   * PUT /status -> data.account, sync now POST / { id }) or 'bare' (Sage: GET / -> data is the list,
   * PUT /status -> data is the account, sync now GET /data?id=).
   */
  answers: 'wrapped' | 'bare';
  /** The workflows (workflows/sync.ts, workflows/connect.ts) the api starts by function. */
  syncWorkflow: `${K}SyncWorkflow`;
  connectWorkflow: `${K}ConnectWorkflow`;
  /** The worker's sync activities (activities/<key>/index.ts), as the sync workflow calls them. */
  syncActivities: readonly string[];
  /** The tables of the organization's database its sync writes, declared beside the definition (<key>-tables.ts), named <key>_...: warehouse/catalog/ reads them from here. */
  tables: Readonly<Record<string, ConnectorTable>>;
  /** How its tables become rows of trial_balance, and their default amount basis (declared beside its tables). */
  trialBalance?: TrialBalanceSource;
  /**
   * The names of the entities its connections bring (entity key -> the ledger's name for it), for
   * the consolidation's entities (common/consolidation/entity-names.ts); none: "<ledger> <key>".
   */
  entityNames?(organizationId: string): Promise<Iterable<readonly [string, string]>>;
  /** Records it keeps beside its connections (Xero: a consent's token set), deleted with the organization. */
  otherRecords?: readonly Pick<Model<unknown>, 'deleteMany'>[];
  /** The local server speaking its wire format (simulators/), which tests and the demo use. */
  simulator: string;
}

/** What a definition says beyond its registration line: ledgerName and auth come from keys.ts, the workflows' names from the key. */
type Written<K extends SyncProvider> = Omit<ConnectorDefinition<K>, 'connection' | 'answer' | 'model' | 'tables' | 'otherRecords' | 'ledgerName' | 'auth' | 'displayName' | 'syncWorkflow' | 'connectWorkflow'>;

/**
 * A connector's definition, its connection fields' types checked against its key and stored
 * fields. Its ledgerName and auth are its line's in keys.ts, its displayName the ledgerName unless
 * it says otherwise, and its workflows <key>SyncWorkflow and <key>ConnectWorkflow.
 */
export function defineConnector<K extends SyncProvider, F extends z.ZodRawShape, D extends ConnectorAccountDoc, T extends Record<string, ConnectorTable>>(
  // A model's own document type makes it no Model<ConnectorAccountDoc> to TypeScript (schema types are invariant): it is taken as a model, and read through connectorAccountSchema's fields.
  d: Written<K> & { displayName?: string; model: Pick<Model<unknown>, 'modelName' | 'collection'>; otherRecords?: readonly { deleteMany(filter: { organization_id: string }): unknown }[]; answer(account: D): unknown; connection?: CredentialsConnection<F>; tables: T },
): ConnectorDefinition<K> & { tables: T } {
  const line = CONNECTOR_KEYS.find((k) => k.key === d.key);
  if (!line) throw new Error(`connector ${d.key} has no line in common/connectors/keys.ts`);
  // The tables keep their own names (connectorTables.sageTrialBalance), for the connector's activities and the tests.
  return { ...d, ledgerName: line.ledgerName, auth: line.auth, displayName: d.displayName ?? line.ledgerName, syncWorkflow: `${d.key}SyncWorkflow`, connectWorkflow: `${d.key}ConnectWorkflow` } as unknown as ConnectorDefinition<K> & { tables: T };
}

/** A connection's name from a field of its answer (connectionName), when it is a non-empty text. */
export const nameFrom =
  (field: string) =>
  (answer: Record<string, unknown>): string | undefined => {
    const v = answer[field];
    return typeof v === 'string' && v ? v : undefined;
  };

/** The entities its connections bring, one per connection: the entity key and the ledger's name from two fields of its records (entityNames). */
export const entityNamesFrom =
  (model: { find(filter: object, projection: object): { lean<R>(): PromiseLike<R> } }, key: string, name: string) =>
  async (organizationId: string): Promise<(readonly [string, string])[]> =>
    (await model.find({ organization_id: organizationId }, { [key]: 1, [name]: 1 }).lean<Record<string, string | undefined>[]>()).map((a) => [a[key] ?? '', a[name] ?? ''] as const);

/** A required text field of a connection form: trimmed, "<name> is required", "<name> is too long". */
export const field = (name: string, max = 200) =>
  z
    .string({ required_error: `${name} is required`, invalid_type_error: `${name} is required` })
    .trim()
    .min(1, `${name} is required`)
    .max(max, `${name} is too long`);

/** A password, taken as typed (no trimming). */
export const secret = (name: string) => z.string({ required_error: `${name} is required`, invalid_type_error: `${name} is required` }).min(1, `${name} is required`).max(500, `${name} is too long`);
