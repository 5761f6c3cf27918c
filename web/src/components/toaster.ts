import { OverlayToaster, Position, type Intent, type Toaster } from '@blueprintjs/core';

let toaster: Promise<Toaster> | undefined;

/** The app's one toaster. */
export function toast(message: string, intent: Intent = 'none'): void {
  toaster ??= OverlayToaster.createAsync({ position: Position.TOP });
  void toaster.then((t) => t.show({ message, intent, timeout: 4000 }));
}
