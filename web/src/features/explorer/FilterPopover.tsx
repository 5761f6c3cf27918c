import { Button, FormGroup, HTMLSelect, InputGroup, Popover } from '@blueprintjs/core';
import { useState, type FormEvent } from 'react';
import { FILTER_OP_LABELS, OPS_FOR_KIND, TEXT_OPS, VALUELESS_OPS, type ColumnAnswer, type FilterOp, type TableFilter } from '../../../../common/contract/tables';

const PLACEHOLDERS: Record<ColumnAnswer['kind'], string> = { text: 'Text', number: 'A number, e.g. 1000', date: 'YYYY-MM-DD', datetime: 'YYYY-MM-DD or YYYY-MM-DDTHH:mm (UTC)', boolean: '' };

/** The value rules the api applies, said before the request: a number, a day, a time. */
export function filterValueProblem(kind: ColumnAnswer['kind'], op: FilterOp, value: string): string | undefined {
  if (VALUELESS_OPS.includes(op)) return undefined;
  const v = value.trim();
  if (!v) return 'Enter a value';
  if (TEXT_OPS.includes(op)) return undefined;
  if (kind === 'number' && !Number.isFinite(Number(v.replace(/,/g, '')))) return 'Enter a number';
  if (kind === 'date' && !/^\d{4}-\d{2}-\d{2}$/.test(v)) return 'Dates are YYYY-MM-DD';
  if (kind === 'datetime' && !/^\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2})?)?$/.test(v)) return 'Times are YYYY-MM-DD or YYYY-MM-DDTHH:mm';
  return undefined;
}

/** The filter button of one column's header: a small form that adds a filter on that column. */
export function FilterPopover({ column, active, onAdd }: { column: ColumnAnswer; active: boolean; onAdd: (f: TableFilter) => void }) {
  const ops = OPS_FOR_KIND[column.kind];
  const [open, setOpen] = useState(false);
  const [op, setOp] = useState<FilterOp>(ops[0]!);
  const [value, setValue] = useState(column.kind === 'boolean' ? 'yes' : '');
  const [problem, setProblem] = useState<string>();
  const id = `filter-${column.name.replace(/[^A-Za-z0-9_-]/g, '_')}`;
  const needsValue = !VALUELESS_OPS.includes(op);

  function submit(e: FormEvent) {
    e.preventDefault();
    const p = filterValueProblem(column.kind, op, value);
    setProblem(p);
    if (p) return;
    onAdd({ column: column.name, op, ...(needsValue ? { value: value.trim() } : {}) });
    setOpen(false);
    setValue(column.kind === 'boolean' ? 'yes' : '');
  }

  return (
    <Popover
      isOpen={open}
      onInteraction={(next) => setOpen(next)}
      placement="bottom-start"
      content={
        <form className="explorer-filter-form" onSubmit={submit} aria-label={`Filter ${column.name}`} noValidate>
          <FormGroup label={`Rows where ${column.name}`} labelFor={`${id}-op`}>
            <HTMLSelect id={`${id}-op`} fill value={op} onChange={(e) => setOp(e.target.value as FilterOp)}>
              {ops.map((o) => (
                <option key={o} value={o}>
                  {FILTER_OP_LABELS[o]}
                </option>
              ))}
            </HTMLSelect>
          </FormGroup>
          {needsValue && (
            <FormGroup label="Value" labelFor={`${id}-value`} intent={problem ? 'danger' : 'none'} helperText={problem}>
              {column.kind === 'boolean' && !TEXT_OPS.includes(op) ? (
                <HTMLSelect id={`${id}-value`} fill value={value} onChange={(e) => setValue(e.target.value)}>
                  <option value="yes">Yes</option>
                  <option value="no">No</option>
                </HTMLSelect>
              ) : (
                <InputGroup id={`${id}-value`} autoFocus value={value} placeholder={TEXT_OPS.includes(op) ? 'Text' : PLACEHOLDERS[column.kind]} intent={problem ? 'danger' : 'none'} onChange={(e) => setValue(e.target.value)} />
              )}
            </FormGroup>
          )}
          <Button type="submit" intent="primary" text="Apply filter" fill />
        </form>
      }
    >
      <Button variant="minimal" size="small" icon="filter" intent={active ? 'primary' : 'none'} aria-label={`Filter ${column.name}`} title={`Filter ${column.name}`} />
    </Popover>
  );
}
