/** The page frame: login gate, navigation by role, and the routes. */
import { useCallback, useEffect, useState } from 'react';

import { client, endSession, errorText, logout, resumeSession, saveSession } from './api.js';
import { ErrorBox, Progress } from './components/ui.js';
import { takeFlash } from './flash.js';
import { Account, HealthPage } from './pages/Account.js';
import { Audit } from './pages/admin/Audit.js';
import { NodePage } from './pages/admin/NodePage.js';
import { Nodes } from './pages/admin/Nodes.js';
import { Organizations } from './pages/admin/Organizations.js';
import { Roles } from './pages/admin/Roles.js';
import { Users } from './pages/admin/Users.js';
import { CollaborationList, CollaborationPage } from './pages/Collaborations.js';
import { LoginPage, RecoverPage } from './pages/Login.js';
import { TaskPage } from './pages/TaskPage.js';
import { NewTask } from './pages/tasks/NewTask.js';
import { TaskList } from './pages/tasks/TaskList.js';
import { Link, navigate, useRoute } from './router.js';
import { StoreRoutes, storeTitle } from './store/StoreRoutes.js';
import { MeContext, makeMe, type Me } from './session.js';

async function loadMe(): Promise<Me> {
  const user = await client.user.me();
  // The user's rules: those given directly and those of their roles.
  const [catalogue, ...ofRoles] = await Promise.all([
    client.rule.list(),
    ...(user.roles ?? []).map((r) => client.role.rules(r.id)),
  ]);
  const direct = new Set((user.rules ?? []).map((r) => r.id));
  const rules = new Map(
    [...catalogue!.filter((r) => direct.has(r.id)), ...ofRoles.flat()].map((r) => [r.id, r]),
  );
  return makeMe(
    user,
    [...rules.values()].sort((a, b) => a.id - b.id),
    rules.size === catalogue!.length,
  );
}

const TITLES: Record<string, string> = {
  '': 'Collaborations',
  collaborations: 'Collaborations',
  collaboration: 'Collaboration',
  tasks: 'Tasks',
  task: 'Task',
  'new-task': 'New task',
  organizations: 'Organizations',
  nodes: 'Nodes',
  node: 'Node',
  users: 'Users',
  roles: 'Roles',
  health: 'Server health',
  audit: 'Audit log',
  account: 'My account',
};

/** The message a page left for this one (once). */
function Flash() {
  const [text] = useState(takeFlash);
  return text ? (
    <p className="notice success" role="status">
      {text}
    </p>
  ) : null;
}

export function App() {
  const route = useRoute();
  const [me, setMe] = useState<Me | null>(null);
  const [starting, setStarting] = useState(true);
  const [error, setError] = useState<string | null>(null);
  // The top bar's menu on a narrow screen: closed again whenever the page changes.
  const [menuOpen, setMenuOpen] = useState(false);
  useEffect(() => setMenuOpen(false), [route.href]);
  const start = useCallback(() => {
    setStarting(true);
    loadMe().then(
      (m) => {
        saveSession();
        setMe(m);
        setStarting(false);
      },
      (e: unknown) => {
        setError(errorText(e));
        logout();
        setStarting(false);
      },
    );
  }, []);
  useEffect(() => {
    if (resumeSession()) start();
    else setStarting(false);
  }, [start]);

  // Each page has its own title (tabs, history and screen readers tell them apart).
  useEffect(() => {
    const part = route.parts[0];
    const title = !me
      ? part === 'recover'
        ? 'Password recovery'
        : 'Log in'
      : (TITLES[part ?? ''] ?? 'Page not found');
    document.title = `${part === 'task' || part === 'collaboration' || part === 'node' ? `${title} ${route.parts[1] ?? ''}` : title} · Federa`;
  }, [route, me]);

  // The store's pages are titled by what they show, over the general title set just above.
  useEffect(() => {
    if (me && route.parts[0] === 'store') document.title = `${storeTitle(route.parts)} · Federa`;
  }, [route, me]);

  if (starting) return <Progress label="Starting…" />;
  const [first, second] = route.parts;
  if (!me) {
    if (first === 'recover') return <RecoverPage />;
    return (
      <>
        {error ? <ErrorBox error={error} /> : null}
        <LoginPage onLogin={() => start()} />
      </>
    );
  }
  const can = me.can;
  const nav: [string, string, boolean][] = [
    ['/collaborations', 'Collaborations', true],
    ['/tasks', 'Tasks', can('task', 'VIEW')],
    ['/store', 'Store', true],
    ['/organizations', 'Organizations', can('organization', 'VIEW')],
    ['/nodes', 'Nodes', can('node', 'VIEW')],
    ['/users', 'Users', can('user', 'VIEW')],
    ['/roles', 'Roles', can('role', 'VIEW')],
    ['/health', 'Health', can('user', 'VIEW', ['GLOBAL'])],
    ['/audit', 'Audit', me.root],
  ];
  let page;
  switch (first) {
    case undefined:
    case 'collaborations':
      page = <CollaborationList />;
      break;
    case 'collaboration':
      page = <CollaborationPage id={Number(second)} />;
      break;
    case 'tasks':
      page = <TaskList route={route} />;
      break;
    case 'task':
      page = <TaskPage key={second} id={Number(second)} />;
      break;
    case 'new-task':
      page = <NewTask key={route.href} route={route} />;
      break;
    case 'store':
      page = <StoreRoutes route={route} />;
      break;
    case 'organizations':
      page = <Organizations route={route} />;
      break;
    case 'nodes':
      page = <Nodes route={route} />;
      break;
    case 'node':
      page = <NodePage key={second} id={Number(second)} />;
      break;
    case 'users':
      page = <Users route={route} />;
      break;
    case 'roles':
      page = <Roles />;
      break;
    case 'audit':
      page = <Audit />;
      break;
    case 'health':
      page = <HealthPage />;
      break;
    case 'account':
      page = <Account />;
      break;
    default:
      page = <ErrorBox error={`There is no page "${route.href}".`} />;
  }
  return (
    <MeContext.Provider value={me}>
      <a
        href="#main"
        className="skip"
        onClick={(e) => {
          e.preventDefault();
          document.getElementById('main')?.focus();
        }}
      >
        Skip to content
      </a>
      <header className={menuOpen ? 'top open' : 'top'}>
        <Link to="/" className="brand">
          <span className="logo" aria-hidden="true">
            ◆
          </span>{' '}
          Federa
        </Link>
        <button
          type="button"
          className="menu-toggle"
          aria-expanded={menuOpen}
          aria-controls="main-menu"
          onClick={() => setMenuOpen((o) => !o)}
        >
          Menu
        </button>
        <nav aria-label="Main" id="main-menu">
          {nav
            .filter(([, , shown]) => shown)
            .map(([to, label]) => (
              <Link
                key={to}
                to={to}
                aria-current={`/${first ?? 'collaborations'}`.startsWith(to) ? 'page' : undefined}
              >
                {label}
              </Link>
            ))}
        </nav>
        <div className="who">
          <Link to="/account">{me.user.username}</Link>
          <button
            type="button"
            onClick={() => {
              void endSession().then(() => {
                setMe(null);
                navigate('/');
              });
            }}
          >
            Log out
          </button>
        </div>
      </header>
      <main id="main" tabIndex={-1}>
        <Flash key={route.href} />
        {page}
      </main>
    </MeContext.Provider>
  );
}
