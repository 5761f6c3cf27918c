// How fresh an organization's reports are (GET /api/v1/freshness): per connection and for the
// organization, the newest sync applied to trial_balance and the consolidation that includes it;
// the organization's changes workflow's state; and, asked by its change id (a Sync now's answer
// carries it), how one sync is getting on. Pure: zod only.
import { z } from 'zod';
import { SYNC_PROVIDERS } from './connections';

const when = z.string().datetime({ offset: true });

export const freshnessTimesSchema = z.object({
  /** When the newest sync applied to trial_balance finished (null: none yet). */
  changeAt: when.nullable(),
  /** When the consolidation that includes it finished (null: none set up, or not yet). */
  consolidatedAt: when.nullable(),
  /** The months the latest round found changed, YYYY-MM. */
  monthsChanged: z.array(z.string()),
  /** The latest round's failure, in the user's words. */
  lastError: z.string().nullable(),
});

export const connectionFreshnessSchema = freshnessTimesSchema.extend({
  provider: z.enum(SYNC_PROVIDERS),
  accountId: z.string(),
  /** The company's name as the connection shows it. */
  name: z.string(),
});

export const CHANGE_STATES = ['waiting', 'gathering', 'trial-balance', 'consolidating', 'done', 'failed'] as const;
export type ChangeState = (typeof CHANGE_STATES)[number];

export const freshnessSchema = z.object({
  organization: freshnessTimesSchema,
  connections: z.array(connectionFreshnessSchema),
  /** The organization's changes workflow: idle, or what its round is doing, and how many changes wait. */
  changes: z.object({
    step: z.enum(['idle', 'gathering', 'syncing', 'trial-balance', 'consolidating', 'recording', 'waiting-for-running', 'done']),
    pending: z.number().int().min(0),
    rounds: z.number().int().min(0),
  }),
  /** Asked with changeId: that sync's way into the reports. */
  change: z
    .object({
      id: z.string(),
      state: z.enum(CHANGE_STATES),
      monthsChanged: z.array(z.string()).nullable(),
      consolidation: z.enum(['succeeded', 'failed', 'not-configured', 'unchanged']).nullable(),
      error: z.string().nullable(),
    })
    .optional(),
});

export type FreshnessAnswer = z.infer<typeof freshnessSchema>;
export type ConnectionFreshness = z.infer<typeof connectionFreshnessSchema>;
