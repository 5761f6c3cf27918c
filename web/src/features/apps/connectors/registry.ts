// The connectors of the Apps screen, in the order of common/connectors/keys.ts: each line's
// defaults, its connect form (common/connectors/forms.ts) and what its own file says (./index.ts).
import { CONNECT_FORMS } from '../../../../../common/connectors/forms';
import { CONNECTOR_KEYS } from '../../../../../common/connectors/keys';
import { OWN_APPS } from '.';
import type { ConnectForm } from '../../../../../common/connectors/form';
import type { App, Connection, OwnApp } from './types';

const text = (v: unknown) => (typeof v === 'string' && v ? v : undefined);
/** A connection's name where its connector says nothing: its name or company name, else its id. */
const defaultName = (c: Connection) => text(c.name) ?? text(c.companyName) ?? c.id;

type Line = { key: string; ledgerName: string; auth: App['auth'] };

/** A connector of the Apps screen from its registration line, what its own file says (if anything) and its connect form (credentials). */
export function appFrom(line: Line, own: OwnApp = {}, form: ConnectForm = []): App {
  const appName = own.appName ?? line.ledgerName;
  return {
    key: line.key,
    ledgerName: line.ledgerName,
    auth: line.auth,
    appName,
    choiceLabel: own.choiceLabel ?? line.ledgerName,
    answers: own.answers ?? 'bare',
    fullResync: own.fullResync ?? true,
    connectionName: own.connectionName ?? defaultName,
    details: own.details,
    reconnect: own.reconnect ?? `${line.ledgerName} refused the stored authorization: connect again (Add New Connection, ${line.ledgerName}).`,
    consentNote: own.consentNote ?? `You will be sent to ${line.ledgerName} to sign in and allow access, then brought back here.`,
    noun: own.noun ?? 'account',
    Callback: own.Callback,
    form,
  };
}

export const APPS: readonly App[] = CONNECTOR_KEYS.map((line) => appFrom(line, OWN_APPS[line.key], CONNECT_FORMS[line.key]));

export const appOf = (key: string): App | undefined => APPS.find((a) => a.key === key);
