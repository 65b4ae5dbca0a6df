// The users' mix of bench/api-mixed, shared by its closed loop (run.mjs) and its open loop (open-loop-worker.mjs):
// the routes with their weights, the weighted pick, and the request each route makes.

// The users' mix (weights, out of 100). Nodes add their own requests (GET open runs, PATCH /result) on top.
export const MIX = [
  ['GET /task?page=1&per_page=10', 25],
  ['GET /task/{id}', 15],
  ['GET /result?task_id={id}', 15],
  ['GET /organization?page=1&per_page=10', 10],
  ['GET /collaboration/{id}', 10],
  ['GET /node?page=1&per_page=10', 10],
  ['GET /user/{me}', 10],
  ['POST /task', 5],
];

const TOTAL = MIX.reduce((s, [, w]) => s + w, 0);

/** A route of MIX, picked at random by weight. */
export const pickRoute = () => {
  let x = Math.random() * TOTAL;
  for (const [route, w] of MIX) if ((x -= w) < 0) return route;
  return MIX[0][0];
};

/**
 * The mix as a fixed sequence of 100 routes, each as often as its weight and spread evenly (smooth weighted round
 * robin): the open loop takes slot i's route from it, so that a run's proportions, and the nodes' requests the
 * task posts bring, are exact rather than drawn by chance.
 */
export const ROUTE_SEQUENCE = (() => {
  const current = MIX.map(() => 0);
  const out = [];
  for (let n = 0; n < TOTAL; n++) {
    let best = 0;
    MIX.forEach(([, w], k) => {
      current[k] += w;
      if (current[k] > current[best]) best = k;
    });
    current[best] -= TOTAL;
    out.push(MIX[best][0]);
  }
  return out;
})();

const any = (xs) => xs[Math.floor(Math.random() * xs.length)];

/** The path (under /api) of a GET route of MIX for the user `userId`. */
export function userPath(route, { userId, taskIds, collaborationId }) {
  switch (route) {
    case 'GET /task?page=1&per_page=10':
      return '/task?page=1&per_page=10';
    case 'GET /task/{id}':
      return `/task/${any(taskIds)}`;
    case 'GET /result?task_id={id}':
      return `/result?task_id=${any(taskIds)}`;
    case 'GET /organization?page=1&per_page=10':
      return '/organization?page=1&per_page=10';
    case 'GET /collaboration/{id}':
      return `/collaboration/${collaborationId}`;
    case 'GET /node?page=1&per_page=10':
      return '/node?page=1&per_page=10';
    case 'GET /user/{me}':
      return `/user/${userId}`;
    default:
      throw new Error(`not a GET route of the mix: ${route}`);
  }
}

/** The body of the `i`th `POST /task`: a task for two of the nodes' organizations (one run each). */
export const taskBody = (collaborationId, orgIds, i, name = `mixed ${i}`) =>
  JSON.stringify({
    collaboration_id: collaborationId,
    organizations: [orgIds[i % orgIds.length], orgIds[(i + 1) % orgIds.length]].map((id) => ({
      id,
      input: 'aW5wdXQ=',
    })),
    name,
    image: 'bench/image',
  });

/**
 * The nodes' requests that one users' request brings, on average, when each task post reaches `reached` nodes
 * with `new_task`: each of them GETs its open runs of that task, and the two with a run report it (two PATCHes
 * each). How many a post reaches is the server's choice (the whole collaboration, or only the nodes with a run):
 * run.mjs counts it before the open loop starts.
 */
export const nodeRequestsPerUserRequest = (reached) => {
  const post = MIX.find(([r]) => r === 'POST /task')[1] / TOTAL;
  return post * (reached + 2 * 2);
};
