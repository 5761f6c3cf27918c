// Written by `node scripts/connectors.mjs` from common/connectors/keys.ts: do not edit (test/connectors.test.ts checks it).
// Each credentials connector's connect form (common/connectors/<key>-form.ts), pure: the Apps screen builds its forms from it.
import type { ConnectForm } from './form';
import { form as sage } from './sage-form';
import { form as netsuite } from './netsuite-form';

export const CONNECT_FORMS: Readonly<Record<string, ConnectForm>> = { sage, netsuite };
