import { Button, Callout, Card, H3 } from '@blueprintjs/core';
import { useEffect, useState, type FormEvent } from 'react';
import { check, email, personName, phone } from '../../../../common/validation';
import { Field } from '../../components/Field';
import { toast } from '../../components/toaster';
import { apiRequest } from '../../lib/api-client';
import { checkForm } from '../../lib/forms';
import { updateSessionUser, useSession } from '../../lib/session';
import type { UserAnswer } from '../../../../common/contract/users';

/** The signed-in user's own name, email and phone: PUT /auth/profile/{userId}. */
export function PersonalInformationCard() {
  const { user } = useSession();
  const [values, setValues] = useState({ fullName: '', email: '', phoneNumber: '' });
  const [errors, setErrors] = useState<Partial<Record<keyof typeof values, string>>>({});
  const [formError, setFormError] = useState<string>();
  const [saving, setSaving] = useState(false);
  useEffect(() => {
    if (user) setValues({ fullName: user.fullName ?? user.fullname ?? '', email: user.email ?? '', phoneNumber: user.phoneNumber ?? '' });
  }, [user]);
  const set = (k: keyof typeof values) => (v: string) => setValues((s) => ({ ...s, [k]: v }));

  async function submit(e: FormEvent) {
    e.preventDefault();
    if (!user) return;
    const res = checkForm({ fullName: () => check(personName, values.fullName), email: () => check(email, values.email), phoneNumber: () => check(phone, values.phoneNumber) }, values);
    setErrors(res.errors);
    setFormError(res.formError);
    if (res.formError) return;
    setSaving(true);
    try {
      const out = await apiRequest<{ user: UserAnswer }>('PUT', `/auth/profile/${encodeURIComponent(user.id)}`, values, 'Update failed');
      if (out.data?.user) updateSessionUser({ ...user, ...out.data.user });
      toast(out.message ?? 'Profile updated successfully', 'success');
    } catch (err) {
      setFormError((err as Error).message);
    } finally {
      setSaving(false);
    }
  }

  return (
    <Card className="page-card narrow-card">
      <H3>Personal Information</H3>
      <form onSubmit={(e) => void submit(e)} noValidate aria-label="Personal Information">
        <Field id="me-name" label="Full Name" autoComplete="name" value={values.fullName} onValue={set('fullName')} error={errors.fullName} />
        <Field id="me-email" label="Email" type="email" autoComplete="email" value={values.email} onValue={set('email')} error={errors.email} />
        <Field id="me-phone" label="Phone Number" type="tel" autoComplete="tel" value={values.phoneNumber} onValue={set('phoneNumber')} error={errors.phoneNumber} />
        {formError && <Callout intent="danger" role="alert">{formError}</Callout>}
        <Button type="submit" loading={saving} text="Save profile" className="auth-submit" />
      </form>
    </Card>
  );
}
