import { H1 } from '@blueprintjs/core';
import { FAQ } from './faq';
import { PublicLayout } from './PublicLayout';

export default function FaqPage() {
  return (
    <PublicLayout>
      <H1>Frequently asked questions</H1>
      {FAQ.map((f) => (
        <details key={f.q} open>
          <summary>{f.q}</summary>
          <p>{f.a}</p>
        </details>
      ))}
    </PublicLayout>
  );
}
