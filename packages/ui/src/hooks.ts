import { useCallback, useEffect, useRef, useState } from 'react';

import { errorText } from './api.js';

export interface AsyncState<T> {
  data: T | undefined;
  error: string | null;
  loading: boolean;
  reload: () => void;
}

/** Runs `load` when `deps` change (and on `reload`); keeps the last data while reloading. */
export function useAsync<T>(load: () => Promise<T>, deps: readonly unknown[]): AsyncState<T> {
  const [data, setData] = useState<T | undefined>(undefined);
  const [error, setError] = useState<string | null>(null);
  const [loading, setLoading] = useState(true);
  const [tick, setTick] = useState(0);
  const current = useRef(0);
  useEffect(() => {
    const run = ++current.current;
    setLoading(true);
    load().then(
      (value) => {
        if (run !== current.current) return;
        setData(value);
        setError(null);
        setLoading(false);
      },
      (e: unknown) => {
        if (run !== current.current) return;
        setError(errorText(e));
        setLoading(false);
      },
    );
  }, [...deps, tick]);
  const reload = useCallback(() => setTick((t) => t + 1), []);
  return { data, error, loading, reload };
}

/**
 * Runs an action, tracking whether it is running, its error, and what to say when it succeeded: every form and
 * button shows one or the other ({@link Outcome}), never nothing.
 */
export function useAction(): {
  busy: boolean;
  error: string | null;
  /** The success message of the last action, when it was given one. */
  done: string | null;
  run: <T>(action: () => Promise<T>, success?: string | ((value: T) => string)) => Promise<T | undefined>;
  clear: () => void;
} {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [done, setDone] = useState<string | null>(null);
  const run = useCallback(
    async <T>(
      action: () => Promise<T>,
      success?: string | ((value: T) => string),
    ): Promise<T | undefined> => {
      setBusy(true);
      setError(null);
      setDone(null);
      try {
        const value = await action();
        if (success !== undefined) setDone(typeof success === 'function' ? success(value) : success);
        return value;
      } catch (e) {
        setError(errorText(e));
        return undefined;
      } finally {
        setBusy(false);
      }
    },
    [],
  );
  const clear = useCallback(() => {
    setError(null);
    setDone(null);
  }, []);
  return { busy, error, done, run, clear };
}
