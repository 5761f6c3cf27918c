import { OverlayToaster, Position, type Intent, type Toaster } from '@blueprintjs/core';
import { createRoot } from 'react-dom/client';

let toaster: Promise<Toaster> | undefined;

/** The app's one toaster (rendered with React 18's createRoot). */
export function toast(message: string, intent: Intent = 'none'): void {
  toaster ??= OverlayToaster.createAsync({ position: Position.TOP }, { domRenderer: (element, container) => createRoot(container).render(element) });
  void toaster.then((t) => t.show({ message, intent, timeout: 4000 }));
}
