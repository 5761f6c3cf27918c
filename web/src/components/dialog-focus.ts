/**
 * Every dialog takes the keyboard: focus moves inside when it opens (to the first field where
 * one has autoFocus), stays there, Escape closes it, and focus returns to what opened it.
 */
export const KEYBOARD_DIALOG = { autoFocus: true, enforceFocus: true, canEscapeKeyClose: true, shouldReturnFocusOnClose: true } as const;
