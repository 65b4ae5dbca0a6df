/**
 * The store's pages under `#/store`: the catalogue, an algorithm, the generated task form, the reviews, and a
 * task's results drawn as its function declares.
 */
import { ErrorBox } from '../components/ui.js';
import type { Route } from '../router.js';
import { AlgorithmPage } from './AlgorithmPage.js';
import { Catalogue } from './Catalogue.js';
import { ResultsPage } from './ResultsPage.js';
import { Reviews } from './Reviews.js';
import { TaskForm } from './TaskForm.js';

/** The title of a store page (tabs, history and screen readers tell them apart). */
export function storeTitle(parts: readonly string[]): string {
  switch (parts[1]) {
    case undefined:
      return 'Algorithm store';
    case 'algorithm':
      return `Store algorithm ${parts[2] ?? ''}`.trim();
    case 'new-task':
      return 'New task from the store';
    case 'reviews':
      return 'Store reviews';
    case 'results':
      return `Results of task ${parts[2] ?? ''}`.trim();
    default:
      return 'Page not found';
  }
}

export function StoreRoutes({ route }: { route: Route }) {
  const [, page, id] = route.parts;
  switch (page) {
    case undefined:
      return <Catalogue />;
    case 'algorithm':
      return Number.isInteger(Number(id)) && Number(id) > 0 ? (
        <AlgorithmPage key={id} id={Number(id)} />
      ) : (
        <ErrorBox error={`"${id ?? ''}" is not an algorithm number.`} />
      );
    case 'new-task':
      return <TaskForm key={route.href} route={route} />;
    case 'reviews':
      return <Reviews />;
    case 'results':
      return Number.isInteger(Number(id)) && Number(id) > 0 ? (
        <ResultsPage key={id} taskId={Number(id)} />
      ) : (
        <ErrorBox error={`"${id ?? ''}" is not a task number.`} />
      );
    default:
      return <ErrorBox error={`There is no page "${route.href}".`} />;
  }
}
