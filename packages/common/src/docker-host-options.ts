/**
 * The optional parts of a container's Docker host configuration that the CLI (the node container it starts) and
 * the node (algorithm and helper containers) both set, spelled once in the Engine API's field names. Plain data:
 * each side passes it to its own Docker client.
 */
export interface HostOptionsSpec {
  /** `host:ip` entries for the container's /etc/hosts. */
  readonly extraHosts?: readonly string[] | undefined;
  /** Linux capabilities added to the container (e.g. NET_ADMIN). */
  readonly capAdd?: readonly string[] | undefined;
  /** Host devices the container gets, each at the same path inside, read, write and mknod. */
  readonly devices?: readonly string[] | undefined;
}

export interface DeviceMapping {
  PathOnHost: string;
  PathInContainer: string;
  CgroupPermissions: string;
}

export interface HostOptions {
  ExtraHosts?: string[];
  CapAdd?: string[];
  Devices?: DeviceMapping[];
}

/** The Engine API's `ExtraHosts`, `CapAdd` and `Devices` for what `spec` sets (a field left out stays out). */
export function dockerHostOptions(spec: HostOptionsSpec): HostOptions {
  return {
    ...(spec.extraHosts !== undefined ? { ExtraHosts: [...spec.extraHosts] } : {}),
    ...(spec.capAdd !== undefined ? { CapAdd: [...spec.capAdd] } : {}),
    ...(spec.devices !== undefined
      ? {
          Devices: spec.devices.map((d) => ({ PathOnHost: d, PathInContainer: d, CgroupPermissions: 'rwm' })),
        }
      : {}),
  };
}
