import { useCallback, useEffect, useRef, useState } from 'react';
import { checkForm, type Errors } from './forms';

const IN_ERROR = '[aria-invalid="true"], .bp5-form-group.bp5-intent-danger input, .bp5-form-group.bp5-intent-danger textarea, .bp5-form-group.bp5-intent-danger select, .field-error';

/** Brings the first field in error into view and gives it the keyboard, so a refused submit says where. */
export function focusFirstError(form: HTMLElement | null): void {
  const first = form?.querySelector<HTMLElement>(IN_ERROR);
  if (!first) return;
  const target = first.classList.contains('field-error') ? (first.parentElement?.querySelector<HTMLElement>('input, textarea, select') ?? first) : first;
  target.scrollIntoView?.({ block: 'center' });
  target.focus({ preventScroll: true });
}

/**
 * A form's errors under the shared rules: `validate` checks every field on submit and focuses
 * the first one in error; afterwards each shown error is checked again as its value changes,
 * so it clears as soon as the field is fixed (and the form-level message with the last one).
 */
export function useFormErrors<K extends string>(rules: Record<K, () => string | undefined>, values: unknown) {
  const [errors, setErrors] = useState<Errors<K>>({});
  const [formError, setFormError] = useState<string>();
  const [refused, setRefused] = useState(0);
  const formRef = useRef<HTMLFormElement>(null);
  const rulesRef = useRef(rules);
  rulesRef.current = rules;

  const shownRef = useRef(errors);
  shownRef.current = errors;

  useEffect(() => {
    const shown = shownRef.current;
    const keys = Object.keys(shown) as K[];
    if (keys.length === 0) return;
    const next: Errors<K> = {};
    for (const k of keys) {
      const msg = rulesRef.current[k]?.();
      if (msg) next[k] = msg;
    }
    if (keys.length === Object.keys(next).length && keys.every((k) => next[k] === shown[k])) return;
    setErrors(next);
    if (Object.keys(next).length === 0) setFormError(undefined);
  }, [values]);

  useEffect(() => {
    if (refused) focusFirstError(formRef.current);
  }, [refused]);

  /** Checks every field; false (and the first field in error focused) when the form is refused. */
  function validate(required: Partial<Record<K, string>> = {}): boolean {
    const res = checkForm(rules, required);
    setErrors(res.errors);
    setFormError(res.formError);
    if (res.formError) setRefused((n) => n + 1);
    return !res.formError;
  }

  /** Forgets every error, as when the form starts over for another record. */
  const reset = useCallback(() => {
    setErrors({});
    setFormError(undefined);
  }, []);

  return { errors, formError, setFormError, validate, formRef, reset };
}
