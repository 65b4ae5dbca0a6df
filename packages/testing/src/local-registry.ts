/**
 * Test support: Debian's docker-registry on 127.0.0.1:<free port> with a filesystem root in a temp dir; optionally
 * with TLS (self-signed; Docker accepts any certificate from a 127.0.0.0/8 registry) and htpasswd authentication.
 * Used by the runtime tests and by the node's end-to-end image tests. Needs `apt-get install docker-registry`.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import Docker from 'dockerode';
import { freePort } from './ports.js';

const run = promisify(execFile);
const docker = new Docker();

export interface LocalRegistryOptions {
  /** htpasswd login (the registry then also speaks TLS). */
  readonly auth?: { username: string; password: string };
  /** Labels of the containers `makeImage` commits from. */
  readonly labels?: Record<string, string>;
  /** Image that `makeImage` derives from (must have `true`). Default federa/helper:local. */
  readonly baseImage?: string;
}

export class LocalRegistry {
  port = 0;
  root = '';
  /** `127.0.0.1:<port>/<name>` */
  repo = '';
  readonly auth: { username: string; password: string } | undefined;
  #proc: ChildProcess | undefined;

  /** @param name repository name (lower case, digits, `-`), also the temp dir prefix */
  constructor(
    readonly name: string,
    readonly options: LocalRegistryOptions = {},
  ) {
    this.auth = options.auth;
  }

  get url(): string {
    return `${this.auth !== undefined ? 'https' : 'http'}://127.0.0.1:${this.port}`;
  }

  /** `127.0.0.1:<port>`, as in image references and `docker_registries`. */
  get host(): string {
    return `127.0.0.1:${this.port}`;
  }

  async setUp(): Promise<void> {
    if (!existsSync('/usr/bin/docker-registry')) {
      throw new Error("Debian's docker-registry is missing: apt-get install -y docker-registry");
    }
    this.root = await mkdtemp(join(tmpdir(), `${this.name}-registry-`));
    this.port = await freePort();
    this.repo = `127.0.0.1:${this.port}/${this.name}`;
    const config = [
      'version: 0.1',
      'log:',
      '  level: error',
      '  accesslog:',
      '    disabled: true',
      'storage:',
      '  filesystem:',
      `    rootdirectory: ${join(this.root, 'data')}`,
      '  delete:',
      '    enabled: true',
      'http:',
      `  addr: 127.0.0.1:${this.port}`,
    ];
    if (this.auth !== undefined) {
      const cert = join(this.root, 'cert.pem');
      const key = join(this.root, 'key.pem');
      await run('openssl', [
        'req',
        '-x509',
        '-newkey',
        'rsa:2048',
        '-nodes',
        '-days',
        '1',
        '-subj',
        '/CN=127.0.0.1',
        '-addext',
        'subjectAltName=IP:127.0.0.1',
        '-keyout',
        key,
        '-out',
        cert,
      ]);
      // bcrypt hash (the only kind the registry accepts), cost 4 to keep the test fast; from the system's
      // libcrypt through Debian's python.
      const { stdout } = await run('/usr/bin/python3', [
        '-W',
        'ignore',
        '-c',
        'import crypt, sys; print(crypt.crypt(sys.argv[1], crypt.mksalt(crypt.METHOD_BLOWFISH, rounds=16)))',
        this.auth.password,
      ]);
      await writeFile(join(this.root, 'htpasswd'), `${this.auth.username}:${stdout.trim()}\n`);
      config.push(
        '  tls:',
        `    certificate: ${cert}`,
        `    key: ${key}`,
        'auth:',
        '  htpasswd:',
        '    realm: federa-test',
        `    path: ${join(this.root, 'htpasswd')}`,
      );
    }
    await writeFile(join(this.root, 'config.yml'), config.join('\n') + '\n');
    await this.start();
  }

  async start(): Promise<void> {
    const proc = spawn('docker-registry', ['serve', join(this.root, 'config.yml')], {
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    proc.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
    this.#proc = proc;
    for (let i = 0; i < 100; i++) {
      // Any HTTP answer (401 with authentication) means it listens.
      const up = await new Promise<boolean>((resolve) => {
        const sock = connect({ host: '127.0.0.1', port: this.port }, () => {
          sock.destroy();
          resolve(true);
        });
        sock.on('error', () => resolve(false));
      });
      if (up) return;
      if (proc.exitCode !== null) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error(`docker-registry did not start on 127.0.0.1:${this.port}: ${stderr.slice(-500)}`);
  }

  async stop(): Promise<void> {
    const proc = this.#proc;
    this.#proc = undefined;
    if (proc === undefined || proc.exitCode !== null) return;
    await new Promise<void>((resolve) => {
      proc.on('exit', () => resolve());
      proc.kill('SIGTERM');
    });
  }

  async tearDown(): Promise<void> {
    await this.stop();
    if (this.repo !== '') {
      for (const img of await docker.listImages({ all: true })) {
        const names = [...(img.RepoTags ?? []), ...(img.RepoDigests ?? [])];
        if (names.some((t) => t.startsWith(this.repo))) {
          await docker
            .getImage(img.Id)
            .remove({ force: true })
            .catch(() => undefined);
        }
      }
    }
    if (this.root !== '') await rm(this.root, { recursive: true, force: true });
  }

  /**
   * A new image (distinct digest) tagged `ref`, derived from the base image; `cmd` replaces its command. Returns the
   * image id.
   */
  async makeImage(ref: string, version: string, cmd?: readonly string[]): Promise<string> {
    const c = await docker.createContainer({
      Image: this.options.baseImage ?? 'federa/helper:local',
      Cmd: ['true'],
      Labels: { ...(this.options.labels ?? {}) },
    });
    try {
      const colon = ref.lastIndexOf(':');
      const changes = [`LABEL federa.test.version=${version}`];
      if (cmd !== undefined) changes.push(`CMD ${JSON.stringify(cmd)}`);
      const res = (await c.commit({
        repo: ref.slice(0, colon),
        tag: ref.slice(colon + 1),
        changes,
      })) as { Id: string };
      return res.Id;
    } finally {
      await c.remove({ force: true });
    }
  }

  async push(ref: string): Promise<void> {
    const stream = await docker.getImage(ref).push({
      authconfig: { serveraddress: `127.0.0.1:${this.port}`, ...(this.auth ?? {}) },
    });
    const text = await new Promise<string>((resolve, reject) => {
      let t = '';
      stream.on('data', (d: Buffer) => (t += d.toString()));
      stream.on('end', () => resolve(t));
      stream.on('error', reject);
    });
    if (/"error"/.test(text)) throw new Error(`push of ${ref} failed: ${text.slice(-500)}`);
  }
}
