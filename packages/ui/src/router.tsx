/**
 * Hash routes (`#/task/12`): every page has an address that can be bookmarked and shared, and the server needs
 * no fallback route for them.
 */
import { useEffect, useState, type ReactNode } from 'react';

export interface Route {
  /** Path segments, e.g. `['task', '12']`. */
  parts: string[];
  query: URLSearchParams;
  /** The whole path with its query, e.g. `/tasks?collaboration=1`. */
  href: string;
}

export function currentRoute(): Route {
  const raw = location.hash.replace(/^#/, '') || '/';
  const [path = '/', search = ''] = raw.split('?');
  return {
    parts: path.split('/').filter(Boolean).map(decodeURIComponent),
    query: new URLSearchParams(search),
    href: raw,
  };
}

export function useRoute(): Route {
  const [route, setRoute] = useState(currentRoute);
  useEffect(() => {
    const update = (): void => setRoute(currentRoute());
    window.addEventListener('hashchange', update);
    return () => window.removeEventListener('hashchange', update);
  }, []);
  return route;
}

export function navigate(path: string): void {
  location.hash = path;
}

export function Link(props: {
  to: string;
  children: ReactNode;
  className?: string;
  'aria-current'?: 'page';
}) {
  return (
    <a href={`#${props.to}`} className={props.className} aria-current={props['aria-current']}>
      {props.children}
    </a>
  );
}
