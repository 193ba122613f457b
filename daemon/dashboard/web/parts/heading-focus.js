// After the dashboard changes page, the keyboard focus moves to the new page's heading: a
// screen reader then reads where it landed, and Tab goes on from the top of the new page instead
// of from a link that may no longer be there. Not on the first load: the browser starts there.
import { useEffect, useRef } from '../lib.js';

/** The page's heading, made focusable by script only (tabindex -1: never a Tab stop). */
function focusHeading() {
  const heading = /** @type {HTMLElement | null} */ (document.querySelector('main h1'));
  if (!heading) return false;
  heading.setAttribute('tabindex', '-1');
  heading.focus();
  return true;
}

/**
 * Moves the focus to `main h1` whenever `where` (workspace and path) changes after the first.
 * @param {string} where
 */
export function useHeadingFocus(where) {
  const first = useRef(true);
  useEffect(() => {
    if (first.current) {
      first.current = false;
      return undefined;
    }
    // The page draws its heading in the same render; a page still loading draws it a frame later.
    if (focusHeading()) return undefined;
    const frame = window.requestAnimationFrame(focusHeading);
    return () => window.cancelAnimationFrame(frame);
  }, [where]);
}
