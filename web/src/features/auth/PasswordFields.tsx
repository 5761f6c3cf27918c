import { check, messages, password } from '../../../../common/validation';
import { Field } from '../../components/Field';

export function passwordErrors(newPassword: string, confirmPassword: string): { newPassword?: string; confirmPassword?: string } {
  return {
    newPassword: check(password, newPassword),
    confirmPassword: !confirmPassword ? messages.passwordRequired : confirmPassword !== newPassword ? messages.passwordsMatch : undefined,
  };
}

/** The rule, shown under the field before the first attempt (spec section 5). */
export const PASSWORD_RULES = 'At least 8 characters, with an uppercase letter, a lowercase letter, a number and one of @$!%*?&';

/** New password + confirmation, with the spec's password rule. */
export function PasswordFields({ idPrefix, values, set, errors }: { idPrefix: string; values: { newPassword: string; confirmPassword: string }; set: (k: 'newPassword' | 'confirmPassword') => (v: string) => void; errors: { newPassword?: string; confirmPassword?: string } }) {
  return (
    <>
      <Field id={`${idPrefix}-new`} label="New Password" type="password" autoComplete="new-password" value={values.newPassword} onValue={set('newPassword')} error={errors.newPassword} helperText={PASSWORD_RULES} />
      <Field id={`${idPrefix}-confirm`} label="Confirm Password" type="password" autoComplete="new-password" value={values.confirmPassword} onValue={set('confirmPassword')} error={errors.confirmPassword} />
    </>
  );
}
