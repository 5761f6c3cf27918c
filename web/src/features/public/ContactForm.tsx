import { Button, Callout, FormGroup, TextArea } from '@blueprintjs/core';
import { useState, type FormEvent } from 'react';
import { check, email, personName, phone } from '../../../../common/validation';
import { Field } from '../../components/Field';
import { checkForm, useFormValues } from '../../lib/forms';
import { sendContactInquiry } from './api/contact';

const EMPTY = { name: '', email: '', phone: '', subject: '', message: '' };

export function ContactForm() {
  const { values, set, setValues } = useFormValues(EMPTY);
  const [errors, setErrors] = useState<Partial<Record<keyof typeof EMPTY, string>>>({});
  const [formError, setFormError] = useState<string>();
  const [sent, setSent] = useState<string>();
  const [loading, setLoading] = useState(false);

  async function submit(e: FormEvent) {
    e.preventDefault();
    setSent(undefined);
    const res = checkForm(
      {
        name: () => check(personName, values.name),
        email: () => check(email, values.email),
        phone: () => (values.phone.trim() ? check(phone, values.phone) : undefined),
        subject: () => (values.subject.length > 200 ? 'Subject must be at most 200 characters' : undefined),
        message: () => (values.message.trim() ? undefined : 'Message is required'),
      },
      { name: values.name, email: values.email, message: values.message },
    );
    setErrors(res.errors);
    setFormError(res.formError);
    if (res.formError) return;
    setLoading(true);
    try {
      setSent(await sendContactInquiry(values));
      setValues(EMPTY);
    } catch (err) {
      setFormError((err as Error).message);
    } finally {
      setLoading(false);
    }
  }

  return (
    <form className="contact-form" onSubmit={(e) => void submit(e)} noValidate aria-label="Contact us">
      <Field id="contact-name" label="Name" autoComplete="name" value={values.name} onValue={set('name')} error={errors.name} />
      <Field id="contact-email" label="Email" type="email" autoComplete="email" value={values.email} onValue={set('email')} error={errors.email} />
      <Field id="contact-phone" label="Phone (optional)" type="tel" autoComplete="tel" value={values.phone} onValue={set('phone')} error={errors.phone} />
      <Field id="contact-subject" label="Subject (optional)" value={values.subject} onValue={set('subject')} error={errors.subject} />
      <FormGroup label="Message" labelFor="contact-message" intent={errors.message ? 'danger' : 'none'} helperText={errors.message}>
        <TextArea id="contact-message" fill rows={4} value={values.message} onChange={(e) => set('message')(e.target.value)} intent={errors.message ? 'danger' : 'none'} />
      </FormGroup>
      {formError && <Callout intent="danger" role="alert">{formError}</Callout>}
      {sent && <Callout intent="success" role="status">{sent}</Callout>}
      <Button type="submit" intent="primary" loading={loading} text="Send" />
    </form>
  );
}
