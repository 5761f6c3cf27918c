import { FormGroup, InputGroup, type InputGroupProps } from '@blueprintjs/core';
import type { ReactNode } from 'react';

type Props = { id: string; label: string; error?: string; helperText?: ReactNode; value: string; onValue: (v: string) => void } & Omit<InputGroupProps, 'id' | 'value' | 'onChange'>;

/** A labelled input with its rule's message beside it (spec section 5). */
export function Field({ id, label, error, helperText, value, onValue, ...rest }: Props) {
  return (
    <FormGroup label={label} labelFor={id} intent={error ? 'danger' : 'none'} helperText={error ? <span id={`${id}-error`}>{error}</span> : helperText}>
      <InputGroup id={id} value={value} onChange={(e) => onValue(e.target.value)} intent={error ? 'danger' : 'none'} aria-invalid={Boolean(error)} aria-describedby={error ? `${id}-error` : undefined} {...rest} />
    </FormGroup>
  );
}
