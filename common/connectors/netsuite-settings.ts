// NetSuite's settings (docs/configuration.md, docs/ledgers.md): where its accounts are reached and
// how many requests one worker sends one account at once. Read into common/config.ts through settings.ts.
import { z } from 'zod';

export const netsuiteSettings = {
  /**
   * Where NetSuite accounts are reached: {account} becomes the account's host form (1234567_SB1 ->
   * 1234567-sb1). Default Oracle's https://{account}.suitetalk.api.netsuite.com; tests point it at a local server.
   */
  NETSUITE_BASE_URL: z
    .string()
    .default('https://{account}.suitetalk.api.netsuite.com')
    .refine((v) => URL.canParse(v.replace('{account}', 'account')), 'must be a URL (with {account} where the account ID goes)'),
  /** Requests one worker sends one NetSuite account at once (lowered to what governanceLimits allows, when the role may read it). */
  NETSUITE_CONCURRENCY: z.coerce.number().int().min(1).max(50).default(5),
};
