// What the Apps screen's connect form of a credentials connector asks for, declared beside its
// definition in a pure file (common/connectors/<key>-form.ts, gathered by the generated
// common/connectors/forms.ts): the web app builds the form from it, the api checks the same
// fields with the definition's zod rules (connection.fields).

/** One field of a connect form: typed text, a password (never shown), or a file read as text in the browser. */
export interface ConnectField {
  /** The field's name in the connect request's body (the definition's connection.fields key). */
  name: string;
  label: string;
  kind?: 'text' | 'password' | 'file';
  /** Shown under the field until it has an error. */
  help?: string;
  /** The message when it is left empty (default: "<label> is required"). */
  required?: string;
  /** file: the types the picker offers and its text before a file is chosen. */
  accept?: string;
  placeholder?: string;
}

export type ConnectForm = readonly ConnectField[];
