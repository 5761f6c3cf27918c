// The demo's set-up on top of the synced books (common/demo-plan.ts), read from the file the
// simulators wrote beside their companies (its path comes from npm start in DEMO_CONNECTIONS), as
// a user would bring their mapping workbook, rates and budget: the api takes nothing from simulators/.
import { readFileSync } from 'node:fs';
import { demoPlanSchema, type DemoPlan } from '../../common/demo-plan';

export type { DemoPlan };
/** An entity of the demo group (US, UK, DE, CA). */
export type DemoRole = DemoPlan['entities'][number]['role'];

/** The plan in `file`, checked against the contract; a missing or malformed file is an error naming it. */
export function readDemoPlan(file: string): DemoPlan {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, 'utf8'));
  } catch (e) {
    throw new Error(`the demo plan ${file} could not be read (${e instanceof Error ? e.message : String(e)}): restart npm start so the simulators write it again`);
  }
  const parsed = demoPlanSchema.safeParse(raw);
  if (!parsed.success) throw new Error(`the demo plan ${file} is not valid: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`);
  return parsed.data;
}
