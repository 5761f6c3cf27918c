import { useState } from 'react';
import { messages } from '../../../common/validation';

export type Errors<K extends string> = Partial<Record<K, string>>;

/**
 * Checks a form: each field's rule gives its own message (shown beside the field), and the
 * form gets one of spec section 5's form-level messages: "Please fill in all required fields
 * correctly" while a required field is empty, else "Form submission failed! ...".
 */
export function checkForm<K extends string>(rules: Record<K, () => string | undefined>, required: Partial<Record<K, string>> = {}): { errors: Errors<K>; formError?: string } {
  const errors: Errors<K> = {};
  for (const key of Object.keys(rules) as K[]) {
    const msg = rules[key]();
    if (msg) errors[key] = msg;
  }
  if (Object.keys(errors).length === 0) return { errors };
  const missing = Object.values(required).some((v) => typeof v === 'string' && v.trim() === '');
  return { errors, formError: missing ? messages.formIncomplete : messages.formFailed };
}

/** Form values with a setter per field. */
export function useFormValues<T extends Record<string, string>>(initial: T) {
  const [values, setValues] = useState<T>(initial);
  const set = (key: keyof T) => (v: string) => setValues((s) => ({ ...s, [key]: v }));
  return { values, set, setValues };
}
