import { apiRequest } from '../../../lib/api-client';
import type { RunAnswer } from '../../../../../common/contract/consolidation';
import { consolidationPath, revalidateConsolidation } from './overview';

export const RUN_FAILED = 'The consolidation did not run';

/** What a run left: its message, and per period its outcome once it has finished. */
export interface RunOutcome {
  message: string;
  /** False while the run goes on after the api stopped waiting for it. */
  finished: boolean;
  summary: RunAnswer['summary'];
  blocked: number;
  temporalUrl?: string;
}

type RunReply = Partial<RunAnswer> & { progress?: unknown };

/** How many times a run the api stopped waiting for (202) is joined again before the screen says it goes on. */
const JOINS = 10;

/**
 * POST /consolidation/{orgId}/run: runs every period and waits for the outcome. A run still going
 * when the api stops waiting (202) is joined again (a call while one runs joins it).
 */
export async function runConsolidation(orgId: string): Promise<RunOutcome> {
  try {
    for (let i = 0; ; i++) {
      const res = await apiRequest<RunReply>('POST', `${consolidationPath(orgId)}/run`, {}, RUN_FAILED);
      const d = res.data ?? {};
      if (d.summary) return { message: res.message ?? 'Consolidation done', finished: true, summary: d.summary, blocked: d.blocked ?? 0, temporalUrl: d.temporalUrl };
      if (i + 1 >= JOINS) return { message: res.message ?? 'The consolidation is still running', finished: false, summary: [], blocked: 0, temporalUrl: d.temporalUrl };
    }
  } finally {
    await revalidateConsolidation(orgId);
  }
}

/** PUT /consolidation/{orgId}/locks/{period}: the period's figures stay as they are. */
export async function lockPeriod(orgId: string, period: string): Promise<string> {
  const res = await apiRequest('PUT', `${consolidationPath(orgId)}/locks/${encodeURIComponent(period)}`, {}, 'Period not locked');
  await revalidateConsolidation(orgId);
  return res.message ?? 'Period locked';
}

/** DELETE /consolidation/{orgId}/locks/{period} */
export async function unlockPeriod(orgId: string, period: string): Promise<string> {
  const res = await apiRequest('DELETE', `${consolidationPath(orgId)}/locks/${encodeURIComponent(period)}`, undefined, 'Period not unlocked');
  await revalidateConsolidation(orgId);
  return res.message ?? 'Period unlocked';
}
