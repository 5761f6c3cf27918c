// The name rule (spec section 5: "letters and spaces") takes letters of every script.
import { check, messages, personName } from './validation';

describe('personName', () => {
  it.each(['José', 'Zoë Smith', 'Łukasz Nowak', 'Ngũgĩ wa Thiong’o', "Siobhán O'Brien", 'Jean-Luc Picard', 'Ana  Lima', '李小龙', '  Anne  '])('accepts %s', (name) => {
    expect(check(personName, name)).toBeUndefined();
  });

  it.each(['R2D2', 'john@doe', 'Anne_Marie', "'Brien", 'Jean-', 'Jean--Luc', 'A.B', 'Tab\tName'])('refuses %s with the spec message', (name) => {
    expect(check(personName, name)).toBe(messages.name);
  });

  it('still asks for a name when there is none', () => {
    expect(check(personName, '   ')).toBe(messages.nameRequired);
  });
});
