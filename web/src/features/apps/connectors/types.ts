// What the Apps screen knows of a connector. Most of it comes from the connector's registration
// line (common/connectors/keys.ts: key, ledgerName, auth) and, for a credentials connector, its
// connect form (common/connectors/<key>-form.ts); a connector's own file here
// (web/src/features/apps/connectors/<key>.tsx, gathered by the generated ./index.ts) says only
// what differs from the defaults (./registry.ts).
import type { ComponentType, ReactNode } from 'react';
import type { CONNECTOR_KEYS } from '../../../../../common/connectors/keys';
import type { ConnectForm } from '../../../../../common/connectors/form';

/** One connection as the api answers it: the fields every connector answers (common/contract/connections.ts connectionAnswerSchema) and its own. */
export type Connection = {
  id: string;
  status: string;
  reconnectNeeded?: boolean;
  last_synced?: string | null;
  lastError?: string | null;
} & Record<string, unknown>;

/** What a connector's own callback part gets after the ledger's consent: the query the ledger sent back, and what to call once connections were made. */
export interface CallbackProps {
  params: Record<string, string>;
  onConnected(): void;
  onClose(): void;
}

/** What a connector's own file may say (web/src/features/apps/connectors/<key>.tsx); each has a default. */
export interface OwnApp {
  /** Its name in the rows, dialogs and "Connect <name>" (default: the ledger's name). */
  appName?: string;
  /** Its choice in "Add Connection" (default: the ledger's name). */
  choiceLabel?: string;
  /** The api's answer shapes (ConnectorDefinition.answers; default 'bare'). */
  answers?: 'wrapped' | 'bare';
  /** Whether its rows offer "Full resync" (default true). */
  fullResync?: boolean;
  /** How a connection is named (default: its name or company name, else its id). */
  connectionName?(c: Connection): string;
  /** What follows the name in its row, muted (subsidiaries, currency). */
  details?(c: Connection): ReactNode;
  /** The message when the ledger refused the stored authorization (status reconnect_needed). */
  reconnect?: string;
  /** oauth2-code: the text under its choice before the consent. */
  consentNote?: string;
  /** What its connections are called in fallback messages (default "account"). */
  noun?: string;
  /** oauth2-code: its own step after the consent (default: the code is exchanged and the answer's message shown). */
  Callback?: ComponentType<CallbackProps>;
}

/** A connector as the Apps screen uses it: every default filled in. */
export interface App extends Required<Omit<OwnApp, 'details' | 'Callback'>> {
  key: string;
  ledgerName: string;
  auth: (typeof CONNECTOR_KEYS)[number]['auth'];
  details?(c: Connection): ReactNode;
  Callback?: ComponentType<CallbackProps>;
  /** Credentials connectors: the fields of its connect form. */
  form: ConnectForm;
}
