import { FormGroup, HTMLSelect } from '@blueprintjs/core';

/** A month among the consolidated ones. */
export function PeriodSelect({ id, periods, value, onChange }: { id: string; periods: string[]; value: string; onChange: (period: string) => void }) {
  return (
    <FormGroup label="Period" labelFor={id} inline className="period-select">
      <HTMLSelect id={id} value={value} onChange={(e) => onChange(e.target.value)}>
        {periods.map((p) => (
          <option key={p} value={p}>
            {p}
          </option>
        ))}
      </HTMLSelect>
    </FormGroup>
  );
}

/** The period shown first: the one chosen, else the latest consolidated one. */
export const shownPeriod = (periods: string[], chosen: string | undefined) => (chosen && periods.includes(chosen) ? chosen : (periods.at(-1) ?? ''));
