// The getting-started checklist of an organization (issue 34, section 3), as the api answers it
// (GET /api/v1/getting-started/:orgId) and the web app shows it. Every step is derived from the
// organization's real state; nothing here is ticked by hand. Pure: zod only.
import { z } from 'zod';

export const CHECKLIST_STEPS = ['source', 'trial_balance', 'entities', 'mappings', 'rates', 'consolidation', 'lock', 'pack'] as const;
export type ChecklistStepKey = (typeof CHECKLIST_STEPS)[number];

/** Where each step is done in the web app (its paths, web/src/app/paths.ts). */
export const CHECKLIST_SCREENS = { apps: '/apps', upload: '/file-upload', pipelines: '/pipelines', consolidation: '/consolidation', reports: '/reports', packs: '/reports?tab=packs' } as const;

export const checklistStepSchema = z.object({
  key: z.enum(CHECKLIST_STEPS),
  /** "Connect a ledger or upload a trial balance". */
  title: z.string(),
  /** What the step is and why, in a sentence. */
  why: z.string(),
  done: z.boolean(),
  /** When the step was done (ISO), and by whom (a name; "LedgerFlow" for work no user started); null when not known or not done. */
  doneAt: z.string().nullable(),
  doneBy: z.string().nullable(),
  /** The state behind the verdict, e.g. "2 of 3 currencies have rates for every month: EUR lacks 2026-11". */
  detail: z.string(),
  /** The screen where it is done, and the button's words. */
  link: z.object({ path: z.string(), label: z.string() }),
});
export type ChecklistStep = z.infer<typeof checklistStepSchema>;

export const checklistSchema = z.object({
  steps: z.array(checklistStepSchema),
  done: z.number().int(),
  total: z.number().int(),
  /** The first step not done (null when all are). */
  next: z.enum(CHECKLIST_STEPS).nullable(),
});
export type Checklist = z.infer<typeof checklistSchema>;
