import { readdir } from 'node:fs/promises';

/**
 * The files a folder result store holds (outputs, in their runs' folders or at the top as an earlier version wrote
 * them, and temporaries of writes under way), by name, sorted; not the folders, nor the store's layout mark
 * (docs/large-results.md#the-result-store).
 */
export async function storedFiles(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries
    .filter((entry) => entry.isFile() && entry.name !== '.layout-run-folders')
    .map((entry) => entry.name)
    .sort();
}
