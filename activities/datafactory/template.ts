// The data factory template kept in the repo (templates/datafactory/factory.json), read by
// both providers: Azure PUTs its resources, the local engine runs each pipeline's steps.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

export type LocalStepType = 'loadCsvFiles' | 'rebuildTrialBalance';

export interface TemplateResource {
  name: string;
  properties: Record<string, unknown>;
}
export interface TemplatePipeline extends TemplateResource {
  description: string;
  dependsOn: string[];
  local: { name: string; type: LocalStepType }[];
}
export interface FactoryTemplate {
  version: number;
  linkedServices: TemplateResource[];
  datasets: TemplateResource[];
  pipelines: TemplatePipeline[];
}

export const TEMPLATE_FILE = join(__dirname, '..', '..', 'templates', 'datafactory', 'factory.json');
const LOCAL_STEPS: LocalStepType[] = ['loadCsvFiles', 'rebuildTrialBalance'];

/** Reads and checks the template: every pipeline's dependencies come before it, every local step is known. */
export function loadFactoryTemplate(file = TEMPLATE_FILE): FactoryTemplate {
  const t = JSON.parse(readFileSync(file, 'utf8')) as FactoryTemplate;
  const seen = new Set<string>();
  for (const p of t.pipelines) {
    for (const d of p.dependsOn) if (!seen.has(d)) throw new Error(`template: pipeline ${p.name} depends on ${d}, which must come before it`);
    for (const s of p.local) if (!LOCAL_STEPS.includes(s.type)) throw new Error(`template: unknown local step type ${s.type} in ${p.name}`);
    seen.add(p.name);
  }
  return t;
}

/** Replaces {{name}} in every string of a resource definition. Unknown placeholders are an error. */
export function fillPlaceholders<T>(value: T, vars: Record<string, string>): T {
  const walk = (v: unknown): unknown => {
    if (typeof v === 'string') {
      return v.replace(/\{\{(\w+)\}\}/g, (_m, k: string) => {
        const r = vars[k];
        if (r === undefined) throw new Error(`template: no value for {{${k}}}`);
        return r;
      });
    }
    if (Array.isArray(v)) return v.map(walk);
    if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, walk(x)]));
    return v;
  };
  return walk(value) as T;
}

/** What "import" stores on the organization: the pipelines, their order and their local steps. */
export function installedPipelines(t: FactoryTemplate) {
  return t.pipelines.map((p) => ({ name: p.name, description: p.description, dependsOn: p.dependsOn, activities: p.local.map((s) => ({ name: s.name, type: s.type })) }));
}
