#!/usr/bin/env python3
"""Labelled log sets of ten programs annotail's clusterer was not tuned on, to judge how it
generalises (BENCHMARKS.md, "Unknown errors, thirty-ninth session").

Usage: other_programs.py OUTDIR   Seeded, deterministic.
Each set: SET.log (2,000 lines, the program's own line prefixes) and SET.truth (a template id
per line), the layout `ga.py` and `drain3_ga.py` read:

    python3 benches/unknown/other_programs.py /tmp/other
    python3 benches/unknown/ga.py target/release/annotail /tmp/other MariaDB MongoDB Envoy \
        CoreDNS containerd HAProxy RabbitMQ Cassandra Vault ClickHouse

Written by a reader who had not seen the clusterer's tuning: MariaDB's error log, MongoDB's
JSON log, Envoy's access and application logs, CoreDNS, containerd (logrus logfmt), HAProxy
through syslog, RabbitMQ, Cassandra, Vault (hclog) and ClickHouse, each with 13-22 templates
at Zipf-like frequencies and realistic values.
"""
import datetime as dt, json, os, random, sys

N = 2000
R = random.Random(20261207)


# ---------- value helpers ----------
def ip(): return f"10.{R.randint(0,255)}.{R.randint(0,255)}.{R.randint(1,254)}"
def pubip(): return f"{R.choice([34,52,88,151,185,203])}.{R.randint(0,255)}.{R.randint(0,255)}.{R.randint(1,254)}"
def port(): return R.randint(1024, 65535)
def hx(n): return "".join(R.choice("0123456789abcdef") for _ in range(n))
def uuid(): return f"{hx(8)}-{hx(4)}-4{hx(3)}-{R.choice('89ab')}{hx(3)}-{hx(12)}"
def pick(*xs): return R.choice(xs)
def ms(): return R.choice([R.randint(1, 99), R.randint(100, 9999)])
def fl(a, b, d=3): return f"{R.uniform(a, b):.{d}f}"
WORDS = ["orders", "users", "payments", "inventory", "sessions", "audit_log", "events", "carts",
         "shipments", "invoices", "accounts", "products", "ledger", "metrics", "tokens"]
DBS = ["shop", "billing", "analytics", "auth", "crm", "reporting"]
USERS = ["app", "root", "repl", "backup", "reporter", "svc_etl", "grafana", "admin"]
SVCS = ["checkout", "cart", "payments", "catalog", "frontend", "auth", "search", "recommendation",
        "shipping", "email", "currency", "ad-service", "user-profile"]
NS = ["default", "prod", "staging", "kube-system", "monitoring", "payments", "istio-system"]
HOSTS = ["db-01", "db-02", "app-03", "web-07", "node-4", "cache-2", "lb-1"]
DOMAINS = ["api.example.com", "shop.example.com", "auth.internal.corp", "cdn.example.net",
           "grafana.example.io", "login.example.org", "static.example.com"]
PATHS = ["/api/v1/users/{}", "/api/v1/orders/{}", "/healthz", "/metrics", "/api/v2/cart/{}/items",
         "/static/js/app.{}.js", "/login", "/api/v1/search?q={}", "/v1/products/{}/reviews"]
METHODS = ["GET"] * 6 + ["POST"] * 3 + ["PUT", "DELETE", "PATCH"]
UAS = ["curl/7.88.1", "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/119.0 Safari/537.36",
       "Go-http-client/1.1", "okhttp/4.9.3", "python-requests/2.31.0", "kube-probe/1.28",
       "Mozilla/5.0 (iPhone; CPU iPhone OS 17_1 like Mac OS X) AppleWebKit/605.1.15"]


def upath():
    p = R.choice(PATHS)
    return p.format(R.choice([str(R.randint(1, 99999)), hx(8), R.choice(["shoes", "red%20hat", "tv"])]))


class Clock:
    def __init__(self):
        self.t = dt.datetime(2026, 12, 7, 3, 12, 0, tzinfo=dt.timezone.utc) + dt.timedelta(seconds=R.randint(0, 3600))

    def tick(self):
        self.t += dt.timedelta(microseconds=R.randint(100, 2_500_000))
        return self.t


def zipf_pick(n, s=1.15):
    w = [1 / (k + 1) ** s for k in range(n)]
    return w


def build(name, templates, line_fn, s=1.15, top=None):
    """templates: list of (level, fn) ; line_fn(clock_time, level, msg) -> line.
    top: index of the template that is the most frequent (an access log's line)."""
    order = list(range(len(templates)))
    R.shuffle(order)  # rank of each template is random, not its position
    if top is not None:
        order.remove(top)
        order.insert(0, top)
    w = [0.0] * len(templates)
    for rank, i in enumerate(order):
        w[i] = 1 / (rank + 1) ** s
    c = Clock()
    lines, truth = [], []
    for _ in range(N):
        i = R.choices(range(len(templates)), weights=w)[0]
        lvl, fn = templates[i]
        lines.append(line_fn(c.tick(), lvl, fn()))
        truth.append(f"{name}-E{i + 1}")
    return lines, truth


# ---------- 1. MariaDB error log (10.x text) ----------
def mariadb():
    def q(): return f"'{R.choice(DBS)}'"
    T = [
        ("Warning", lambda: f"Aborted connection {R.randint(10, 99999)} to db: '{R.choice(DBS)}' user: '{R.choice(USERS)}' host: '{ip()}' ({pick('Got an error reading communication packets', 'Got timeout reading communication packets', 'Got an error writing communication packets')})"),
        ("Warning", lambda: f"Access denied for user '{R.choice(USERS)}'@'{ip()}' (using password: {pick('YES', 'NO')})"),
        ("Note", lambda: f"InnoDB: Buffer pool(s) load completed at {c_ts()}"),
        ("Note", lambda: f"Start binlog_dump to slave_server({R.randint(2, 40)}), pos(mysql-bin.{R.randint(1, 999):06d}, {R.randint(4, 99999999)}), using_gtid(1), gtid('0-1-{R.randint(1, 9999999)}')"),
        ("Note", lambda: f"Slave SQL thread initialized, starting replication in log 'mysql-bin.{R.randint(1, 999):06d}' at position {R.randint(4, 99999999)}, relay log './relay-bin.{R.randint(1, 99):06d}' position: {R.randint(4, 9999)}"),
        ("ERROR", lambda: f"Slave I/O: error reconnecting to master 'repl@{ip()}:3306' - retry-time: 60  maximum-retries: 86400  message: Can't connect to MySQL server on '{ip()}' ({R.choice([110, 111, 113])} \"{pick('Connection timed out', 'Connection refused', 'No route to host')}\"), Internal MariaDB error code: 2003"),
        ("Warning", lambda: f"InnoDB: A long semaphore wait:"),
        ("Note", lambda: f"InnoDB: Starting crash recovery from checkpoint LSN={R.randint(10**8, 10**11)}"),
        ("Note", lambda: f"InnoDB: {R.randint(1, 128)} rollback segments are active."),
        ("ERROR", lambda: f"Table './{R.choice(DBS)}/{R.choice(WORDS)}' is marked as crashed and should be repaired"),
        ("Warning", lambda: f"IP address '{ip()}' could not be resolved: {pick('Name or service not known', 'Temporary failure in name resolution')}"),
        ("Note", lambda: f"/usr/sbin/mariadbd: ready for connections."),
        ("Note", lambda: f"Server socket created on IP: '{pick('0.0.0.0', '::')}', port: '3306'."),
        ("Warning", lambda: f"Slave: Duplicate entry '{R.randint(1, 999999)}' for key 'PRIMARY' Error_code: 1062"),
        ("ERROR", lambda: f"Got error {R.choice([28, 122, 135])} when reading table './{R.choice(DBS)}/{R.choice(WORDS)}'"),
        ("Note", lambda: f"InnoDB: Completed initialization of buffer pool"),
        ("Warning", lambda: f"Aborted connection {R.randint(10, 99999)} to db: 'unconnected' user: 'unauthenticated' host: '{ip()}' (This connection closed normally without authentication)"),
        ("Note", lambda: f"InnoDB: Resizing buffer pool from {R.choice([128, 256, 512, 1024])}M to {R.choice([2048, 4096, 8192])}M (unit={R.choice([128, 256])}M)."),
        ("ERROR", lambda: f"mariadbd: Deadlock found when trying to get lock; try restarting transaction"),
        ("Warning", lambda: f"Slave SQL: Could not execute Write_rows_v1 event on table {R.choice(DBS)}.{R.choice(WORDS)}; Duplicate entry '{R.randint(1, 99999)}' for key 'PRIMARY', Error_code: 1062; handler error HA_ERR_FOUND_DUPP_KEY; the event's master log mysql-bin.{R.randint(1, 999):06d}, end_log_pos {R.randint(100, 9999999)}, Gtid 0-1-{R.randint(1, 9999999)}, Internal MariaDB error code: 1062"),
        ("Note", lambda: f"InnoDB: Number of pools: 1"),
        ("Warning", lambda: f"Unsafe statement written to the binary log using statement format since BINLOG_FORMAT = STATEMENT."),
    ]
    clk = Clock()
    def c_ts(): return clk.tick().strftime("%y%m%d %H:%M:%S")
    def line(t, lvl, m): return f"{t.strftime('%Y-%m-%d %H:%M:%S')} {R.choice([0, R.randint(1, 99999)])} [{lvl}] {m}"
    return build("MariaDB", T, line)


# ---------- 2. MongoDB structured JSON log (4.4+) ----------
def mongodb():
    def conn(): return f"conn{R.randint(1, 99999)}"
    def ns(): return f"{R.choice(DBS)}.{R.choice(WORDS)}"
    T = [
        ("I", "NETWORK", 22943, "listener", lambda: ("Connection accepted", {"remote": f"{ip()}:{port()}", "uuid": uuid(), "connectionId": R.randint(1, 99999), "connectionCount": R.randint(1, 900)})),
        ("I", "NETWORK", 22944, None, lambda: ("Connection ended", {"remote": f"{ip()}:{port()}", "uuid": uuid(), "connectionId": R.randint(1, 99999), "connectionCount": R.randint(1, 900)})),
        ("I", "NETWORK", 51800, None, lambda: ("client metadata", {"remote": f"{ip()}:{port()}", "client": conn(), "doc": {"driver": {"name": pick("nodejs", "PyMongo", "mongo-go-driver"), "version": f"{R.randint(3, 6)}.{R.randint(0, 12)}.{R.randint(0, 9)}"}}})),
        ("I", "ACCESS", 20250, None, lambda: ("Authentication succeeded", {"mechanism": "SCRAM-SHA-256", "speculative": R.choice([True, False]), "principalName": R.choice(USERS), "authenticationDatabase": "admin", "remote": f"{ip()}:{port()}"})),
        ("I", "ACCESS", 20249, None, lambda: ("Authentication failed", {"mechanism": "SCRAM-SHA-256", "principalName": R.choice(USERS), "authenticationDatabase": "admin", "remote": f"{ip()}:{port()}", "result": "AuthenticationFailed: SCRAM authentication failed, storedKey mismatch"})),
        ("I", "COMMAND", 51803, None, lambda: ("Slow query", {"type": "command", "ns": ns(), "command": {"find": R.choice(WORDS), "filter": {"userId": R.randint(1, 99999)}}, "planSummary": pick("COLLSCAN", "IXSCAN { userId: 1 }"), "keysExamined": R.randint(0, 9999), "docsExamined": R.randint(0, 99999), "nreturned": R.randint(0, 100), "durationMillis": R.randint(100, 9000)})),
        ("I", "STORAGE", 22430, "Checkpointer", lambda: ("WiredTiger message", {"message": f"[{R.randint(1600000000, 1800000000)}:{R.randint(0, 999999)}][{R.randint(1, 99)}:0x7f{hx(10)}], WT_SESSION.checkpoint: [WT_VERB_CHECKPOINT_PROGRESS] saving checkpoint snapshot min: {R.randint(1, 99999)}, snapshot max: {R.randint(1, 99999)} snapshot count: 0, oldest timestamp: ({R.randint(1600000000, 1800000000)}, 1) , meta checkpoint timestamp: ({R.randint(1600000000, 1800000000)}, 1) base write gen: {R.randint(1, 99999)}"})),
        ("I", "REPL", 21340, "ReplCoord-" + "0", lambda: ("Member is in new state", {"hostAndPort": f"mongo-{R.randint(0, 2)}.mongo.{R.choice(NS)}.svc.cluster.local:27017", "newState": pick("SECONDARY", "PRIMARY", "RECOVERING", "DOWN")})),
        ("W", "NETWORK", 4615610, None, lambda: ("Failed to check socket connectivity", {"error": {"code": 6, "codeName": "HostUnreachable", "errmsg": f"Connection reset by peer"}})),
        ("I", "CONNPOOL", 22576, None, lambda: ("Connecting", {"hostAndPort": f"mongo-{R.randint(0, 2)}.mongo.{R.choice(NS)}.svc.cluster.local:27017"})),
        ("I", "INDEX", 20345, None, lambda: ("Index build: done building", {"buildUUID": None, "collectionUUID": {"uuid": {"$uuid": uuid()}}, "namespace": ns(), "index": f"{R.choice(['userId', 'createdAt', 'status'])}_1", "ident": f"index-{R.randint(1, 999)}-{R.randint(10**17, 10**18)}", "collectionIdent": f"collection-{R.randint(1, 999)}-{R.randint(10**17, 10**18)}", "commitTimestamp": None})),
        ("I", "STORAGE", 20320, None, lambda: ("createCollection", {"namespace": ns(), "uuidDisposition": "generated", "uuid": {"uuid": {"$uuid": uuid()}}, "options": {}})),
        ("E", "REPL", 21426, None, lambda: ("Error in heartbeat", {"target": f"mongo-{R.randint(0, 2)}.mongo.{R.choice(NS)}.svc.cluster.local:27017", "response": {"ok": 0, "errmsg": "Couldn't get a connection within the time limit", "code": 202}})),
        ("I", "CONTROL", 20698, "-", lambda: ("***** SERVER RESTARTED *****", {})),
        ("I", "SHARDING", 22727, None, lambda: ("Shard identity document not found", {"namespace": ns()})),
        ("I", "ACCESS", 20436, None, lambda: ("Checking authorization failed", {"error": {"code": 13, "codeName": "Unauthorized", "errmsg": f"not authorized on {R.choice(DBS)} to execute command {{ find: \"{R.choice(WORDS)}\" }}"}})),
        ("I", "-", 20883, None, lambda: ("Interrupted operation as its client disconnected", {"opId": R.randint(1, 9999999)})),
        ("W", "QUERY", 23798, None, lambda: ("Plan executor error during find command", {"error": {"code": 96, "codeName": "OperationFailed", "errmsg": "Sort exceeded memory limit of 104857600 bytes"}, "stats": {}, "cmd": {"find": R.choice(WORDS)}})),
    ]

    def line(t, lvl, m):
        s, c, i, ctx, fn = m
        msg, attr = fn()
        d = {"t": {"$date": t.strftime("%Y-%m-%dT%H:%M:%S.") + f"{t.microsecond // 1000:03d}+00:00"},
             "s": s, "c": c, "id": i, "ctx": ctx or (f"conn{R.randint(1, 99999)}" if c in ("NETWORK", "ACCESS", "COMMAND", "QUERY", "-") else pick("ReplCoord-3", "ReplNetwork", "initandlisten")),
             "msg": msg}
        if attr:
            d["attr"] = attr
        return json.dumps(d, separators=(",", ":"))
    return build("MongoDB", [(None, (lambda t=t: t)) for t in T], line)


# ---------- 3. Envoy: access log (default format) + application log ----------
def envoy():
    def acc():
        code = R.choice([200] * 8 + [201, 204, 301, 404, 503, 504])
        flags = "-" if code < 500 else R.choice(["UF", "UH", "UT", "URX"])
        return (f'[{{TS}}] "{R.choice(METHODS)} {upath()} HTTP/{pick("1.1", "2")}" {code} {flags} {R.randint(0, 5000)} {R.randint(0, 90000)} {ms()} {R.choice(["-", ms()])} '
                f'"{R.choice([ip(), "-"])}" "{R.choice(UAS)}" "{uuid()}" "{R.choice(DOMAINS)}" "{ip()}:{R.choice([8080, 9000, 3000, 50051])}"')
    T = [
        ("ACC", acc),
        ("info", lambda: f"[source/common/upstream/cds_api_helper.cc:{R.choice([32, 35])}] cds: add {R.randint(0, 40)} cluster(s), remove {R.randint(0, 5)} cluster(s)"),
        ("info", lambda: f"[source/common/upstream/cds_api_helper.cc:{R.choice([69, 71])}] cds: added/updated {R.randint(0, 40)} cluster(s), skipped {R.randint(0, 40)} unmodified cluster(s)"),
        ("info", lambda: f"[source/extensions/config_subscription/grpc/grpc_stream.h:{R.choice([152, 190])}] StreamAggregatedResources gRPC config stream to xds-grpc closed: {R.choice([0, 13, 14])}, {pick('', 'upstream connect error or disconnect/reset before headers. reset reason: connection termination', 'Connection closed')}"),
        ("warning", lambda: f"[source/common/config/grpc_stream.h:{R.choice([101, 163])}] StreamAggregatedResources gRPC config stream closed since {R.randint(1, 9000)}s ago: 14, no healthy upstream"),
        ("info", lambda: f"[source/common/upstream/cluster_manager_impl.cc:{R.choice([222, 226])}] cm init: all clusters initialized"),
        ("info", lambda: f"[source/server/listener_manager_impl.cc:{R.choice([841, 867])}] adding listener '{ip()}_{R.choice([80, 443, 8080, 15006])}': filter chain match not found"),
        ("debug", lambda: f"[source/common/http/conn_manager_impl.cc:{R.choice([329, 1021])}] [C{R.randint(1, 99999)}][S{R.randint(10**18, 10**19 - 1)}] request end stream"),
        ("debug", lambda: f"[source/common/router/router.cc:{R.choice([470, 478])}] [C{R.randint(1, 99999)}][S{R.randint(10**18, 10**19 - 1)}] cluster 'outbound|{R.choice([80, 8080, 9000])}||{R.choice(SVCS)}.{R.choice(NS)}.svc.cluster.local' match for URL '{upath()}'"),
        ("debug", lambda: f"[source/common/http/codec_client.cc:{R.choice([107, 139])}] [C{R.randint(1, 99999)}] response complete"),
        ("debug", lambda: f"[source/common/network/connection_impl.cc:{R.choice([139, 250])}] [C{R.randint(1, 99999)}] closing data_to_write={R.randint(0, 9999)} type={R.randint(0, 2)}"),
        ("warning", lambda: f"[source/common/config/grpc_subscription_impl.cc:{R.choice([119, 120])}] gRPC config for type.googleapis.com/envoy.config.{pick('cluster.v3.Cluster', 'listener.v3.Listener', 'route.v3.RouteConfiguration')} rejected: {pick('Proto constraint validation failed', 'duplicate listener found', 'route: unknown cluster')}"),
        ("info", lambda: f"[source/server/server.cc:{R.choice([932, 935])}] all clusters initialized. initializing init manager"),
        ("info", lambda: f"[source/common/upstream/health_discovery_service.cc:{R.choice([311, 320])}] Health check {pick('passed', 'failed')} for host {ip()}:{R.choice([8080, 9000])} in cluster {R.choice(SVCS)}"),
        ("error", lambda: f"[source/common/upstream/upstream_impl.cc:{R.choice([1104, 1108])}] DNS resolution for {R.choice(SVCS)}.{R.choice(NS)}.svc.cluster.local failed with c-ares status {R.randint(1, 12)}"),
        ("debug", lambda: f"[source/common/conn_pool/conn_pool_base.cc:{R.choice([47, 133])}] [C{R.randint(1, 99999)}] attaching to next stream"),
        ("debug", lambda: f"[source/common/network/connection_impl.cc:{R.choice([649, 678])}] [C{R.randint(1, 99999)}] remote close"),
        ("info", lambda: f"[source/server/drain_manager_impl.cc:{R.choice([68, 77])}] shutting down parent after drain"),
    ]

    def line(t, lvl, m):
        if lvl == "ACC":
            return m.replace("{TS}", t.strftime("%Y-%m-%dT%H:%M:%S.") + f"{t.microsecond // 1000:03d}Z")
        comp = {"cds": "upstream", "Stream": "config", "cm ": "upstream", "addi": "config", "requ": "http", "clus": "router",
                "resp": "client", "clos": "connection", "gRPC": "config", "all ": "main", "Heal": "hc", "DNS ": "upstream",
                "atta": "pool", "remo": "connection", "shut": "main"}
        msg = m.split("] ", 1)[1]
        msg = msg.split("] ")[-1] if msg.startswith("[C") else msg
        c = comp.get(msg[:4], comp.get(msg[:3] + " ", "misc"))
        return f"[{t.strftime('%Y-%m-%d %H:%M:%S.')}{t.microsecond // 1000:03d}][{R.choice([1, 14, 15, 22, 23])}][{lvl}][{c}] {m}"
    return build("Envoy", T, line, top=0)


# ---------- 4. CoreDNS ----------
def coredns():
    QT = ["A", "AAAA", "SRV", "PTR", "TXT"]
    def qn(): return pick(f"{R.choice(SVCS)}.{R.choice(NS)}.svc.cluster.local.", f"{R.choice(DOMAINS)}.", f"{R.choice(SVCS)}.{R.choice(NS)}.svc.cluster.local.{R.choice(NS)}.svc.cluster.local.", f"{R.randint(1, 254)}.{R.randint(0, 255)}.96.10.in-addr.arpa.")
    T = [
        # the log plugin's one format: rcode and flags are values of it
        ("INFO", lambda: f'{ip()}:{port()} - {R.randint(1, 65535)} "{R.choice(QT)} IN {qn()} {pick("udp", "tcp")} {R.randint(20, 90)} {pick("false", "true")} {R.choice([512, 1232, 4096, 65535])}" {pick("NOERROR", "NOERROR", "NXDOMAIN", "SERVFAIL")} {pick("qr,aa,rd", "qr,rd,ra", "qr,aa,rd,ra")} {R.randint(40, 400)} {fl(0, 0.2, 9)}s'),
        ("ERROR", lambda: f"plugin/errors: 2 {qn()} {R.choice(QT)}: read udp {ip()}:{port()}->{pick('8.8.8.8', '1.1.1.1', '10.0.0.2')}:53: i/o timeout"),
        ("ERROR", lambda: f"plugin/errors: 2 {qn()} {R.choice(QT)}: dial tcp {pick('8.8.8.8', '1.1.1.1', '10.0.0.2')}:53: connect: {pick('connection refused', 'network is unreachable')}"),
        ("INFO", lambda: f"plugin/reload: Running configuration SHA512 = {hx(128)}"),
        ("INFO", lambda: f"Reloading"),
        ("INFO", lambda: f"Reloading complete"),
        ("WARNING", lambda: f"plugin/kubernetes: starting server with unsynced Kubernetes API"),
        ("INFO", lambda: f"plugin/ready: Still waiting on: \"{pick('kubernetes', 'kubernetes,forward')}\""),
        ("ERROR", lambda: f"plugin/kubernetes: pkg/mod/k8s.io/client-go@v0.{R.randint(24, 29)}.{R.randint(0, 9)}/tools/cache/reflector.go:{R.choice([169, 229])}: Failed to watch *v1.{pick('EndpointSlice', 'Service', 'Namespace')}: failed to list *v1.{pick('EndpointSlice', 'Service', 'Namespace')}: Get \"https://10.96.0.1:443/api/v1/{pick('services', 'namespaces')}?limit=500&resourceVersion=0\": dial tcp 10.96.0.1:443: i/o timeout"),
        ("WARNING", lambda: f"No files matching import glob pattern: custom/*.override"),
        ("INFO", lambda: f"plugin/health: Going into lameduck mode for {R.choice([5, 10, 15])}s"),
        ("ERROR", lambda: f"plugin/errors: 2 {qn()} {R.choice(QT)}: unreachable backend: no upstream host"),
        ("INFO", lambda: f"CoreDNS-1.{R.randint(9, 11)}.{R.randint(0, 3)}"),
        ("INFO", lambda: f"linux/amd64, go1.{R.randint(19, 22)}.{R.randint(0, 9)}, {hx(7)}"),
        ("WARNING", lambda: f"plugin/kubernetes: Kubernetes API connection failure: Get \"https://10.96.0.1:443/version\": dial tcp 10.96.0.1:443: connect: connection refused"),
    ]

    def line(t, lvl, m): return f"[{lvl}] {m}"
    return build("CoreDNS", T, line, top=0)


# ---------- 5. containerd (logrus text formatter) ----------
def containerd():
    def cid(): return hx(64)
    def pod(): return f"{R.choice(SVCS)}-{hx(10)}-{hx(5)}"
    def psb(): return f"&PodSandboxMetadata{{Name:{pod()},Uid:{uuid()},Namespace:{R.choice(NS)},Attempt:{R.randint(0, 3)},}}"
    def img(): return f"{pick('docker.io/library', 'registry.k8s.io', 'ghcr.io/acme', 'quay.io/prometheus')}/{R.choice(SVCS + ['pause', 'node-exporter'])}:{pick('v1.2.3', 'latest', '3.9', '1.26.1-alpine')}"
    T = [
        ("info", lambda: f'StartContainer for \\"{cid()}\\" returns successfully'),
        ("info", lambda: f'RunPodSandbox for {psb()} returns sandbox id \\"{cid()}\\"'),
        ("info", lambda: f'CreateContainer within sandbox \\"{cid()}\\" for container &ContainerMetadata{{Name:{R.choice(SVCS)},Attempt:{R.randint(0, 9)},}}'),
        ("info", lambda: f'CreateContainer within sandbox \\"{cid()}\\" for &ContainerMetadata{{Name:{R.choice(SVCS)},Attempt:{R.randint(0, 9)},}} returns container id \\"{cid()}\\"'),
        ("info", lambda: f'StopPodSandbox for \\"{cid()}\\"'),
        ("info", lambda: f'TearDown network for sandbox \\"{cid()}\\" successfully'),
        ("info", lambda: f'StopPodSandbox for \\"{cid()}\\" returns successfully'),
        ("info", lambda: f'shim disconnected" id={cid()} namespace=k8s.io'),
        ("warning", lambda: f'cleaning up after shim disconnected" id={cid()} namespace=k8s.io'),
        ("info", lambda: f'PullImage \\"{img()}\\"'),
        ("info", lambda: f'ImageCreate event name:\\"{img()}\\" labels:{{key:\\"io.cri-containerd.image\\" value:\\"managed\\"}}'),
        ("info", lambda: f'PullImage \\"{img()}\\" returns image reference \\"sha256:{hx(64)}\\"'),
        ("error", lambda: f'PullImage \\"{img()}\\" failed" error="failed to pull and unpack image \\"{img()}\\": failed to resolve reference \\"{img()}\\": {pick("unexpected status from HEAD request to https://registry-1.docker.io/v2/library/app/manifests/latest: 401 Unauthorized", "not found", "pull access denied, repository does not exist or may require authorization")}'),
        ("info", lambda: f'RemoveContainer for \\"{cid()}\\"'),
        ("info", lambda: f'RemoveContainer for \\"{cid()}\\" returns successfully'),
        ("error", lambda: f'ContainerStatus for \\"{cid()}\\" failed" error="rpc error: code = NotFound desc = an error occurred when try to find container \\"{cid()}\\": not found'),
        ("info", lambda: f'loading plugin \\"io.containerd.{pick("snapshotter", "grpc", "service", "runtime")}.v1.{pick("overlayfs", "cri", "tasks", "linux", "native")}\\"..." type=io.containerd.{pick("snapshotter", "grpc", "service", "runtime")}.v1'),
        ("info", lambda: f'received exit event container_id:\\"{cid()}\\" id:\\"{cid()}\\" pid:{R.randint(100, 999999)} exit_status:{R.choice([0, 1, 137, 143])} exited_at:{{seconds:{R.randint(1700000000, 1800000000)} nanos:{R.randint(0, 999999999)}}}'),
        ("warning", lambda: f'failed to clean up after shim disconnected" error="io.containerd.runc.v2: remove /run/containerd/s/{hx(64)}: no such file or directory" id={cid()} namespace=k8s.io'),
        ("info", lambda: f'Container to stop \\"{cid()}\\" must be in running or unknown state, current state \\"CONTAINER_EXITED\\"'),
    ]

    def line(t, lvl, m):
        ts = t.strftime("%Y-%m-%dT%H:%M:%S.") + f"{t.microsecond * 1000 + R.randint(0, 999):09d}Z"
        body = f'msg="{m}' if '" ' in m.replace('\\"', '') else f'msg="{m}"'  # message closed early: rest are fields
        if body.replace('\\"', '').count('"') % 2:
            body += '"'
        return f'time="{ts}" level={lvl} {body}'
    return build("containerd", T, line)


# ---------- 6. HAProxy (syslog) ----------
INFO_CR = 'info: "Connection refused", '
def haproxy():
    FE, BE = ["http-in", "https-in~", "api_front"], ["app_servers", "api_back", "static_back"]
    def srv(): return f"{R.choice(BE)}/{pick('web1', 'web2', 'web3', 'app-a', 'app-b')}"
    def http():
        if R.random() < 0.06:  # the same httplog format, for a request that never completed
            return f'{pubip()}:{port()} [{{CLF}}] {R.choice(FE)} {R.choice(FE)}/<NOSRV> -1/-1/-1/-1/{R.randint(0, 9999)} 408 0 - - cR-- {R.randint(1, 900)}/{R.randint(1, 900)}/0/0/0 0/0 "<BADREQ>"'
        code = R.choice([200] * 8 + [302, 304, 404, 500, 502, 503])
        return (f'{pubip()}:{port()} [{{CLF}}] {R.choice(FE)} {srv()} {R.randint(0, 50)}/{R.randint(0, 3)}/{R.randint(0, 30)}/{R.randint(0, 900)}/{R.randint(0, 1200)} '
                f'{code} {R.randint(100, 99999)} - - {"----" if code < 500 else pick("SH--", "sH--", "SC--")} {R.randint(1, 900)}/{R.randint(1, 900)}/{R.randint(0, 90)}/{R.randint(0, 30)}/0 0/0 "{R.choice(METHODS)} {upath()} HTTP/1.1"')
    def tcp():
        return f'{pubip()}:{port()} [{{CLF}}] {pick("mysql_front", "redis_front")} {pick("mysql_back/db1", "redis_back/r2")} 1/0/{R.randint(1, 99999)} {R.randint(10, 99999)} -- {R.randint(1, 90)}/{R.randint(1, 90)}/{R.randint(0, 9)}/{R.randint(0, 9)}/0 0/0'
    T = [
        ("info", http),
        ("info", tcp),
        ("alert", lambda: f"Server {srv()} is DOWN, reason: {pick('Layer4 timeout', 'Layer4 connection problem', 'Layer7 wrong status')}, {pick(INFO_CR, '')}check duration: {R.randint(0, 3000)}ms. {R.randint(0, 4)} active and 0 backup servers left. {R.randint(0, 40)} sessions active, 0 requeued, 0 remaining in queue."),
        ("notice", lambda: f"Server {srv()} is UP, reason: {pick('Layer4 check passed', 'Layer7 check passed')}, {pick('code: 200, ', '')}check duration: {R.randint(0, 300)}ms. {R.randint(1, 4)} active and 0 backup servers online. 0 sessions requeued, 0 total in queue."),
        ("info", lambda: f"Connect from {pubip()}:{port()} to {ip()}:{R.choice([80, 443])} ({R.choice(FE)}/HTTP)"),
        ("emerg", lambda: f"backend {R.choice(BE)} has no server available!"),
        ("notice", lambda: f"Proxy {R.choice(FE + BE)} started."),
        ("warning", lambda: f"Proxy {R.choice(FE + BE)} stopped (cumulated conns: FE: {R.randint(0, 999999)}, BE: {R.randint(0, 999999)})."),
        ("info", lambda: f"{pubip()}:{port()} [{{CLF}}] {R.choice(FE)}/{pick('1', '2')}: SSL handshake failure"),
        ("warning", lambda: f"Health check for server {srv()} failed, reason: {pick('Layer4 timeout', 'Layer7 timeout', 'Layer6 invalid response')}, check duration: {R.randint(1000, 3000)}ms, status: {R.randint(0, 2)}/{R.randint(2, 3)} {pick('UP', 'DOWN')}."),
        ("notice", lambda: f"Pausing proxy {R.choice(FE)}."),
        ("alert", lambda: f"sendmsg()/writev() failed in logger #1: No space left on device (errno=28)"),
        ("warning", lambda: f"Server {srv()} is going DOWN for maintenance. {R.randint(0, 4)} active and 0 backup servers left. 0 sessions active, 0 requeued, 0 remaining in queue."),
    ]

    def line(t, lvl, m):
        clf = t.strftime("%d/%b/%Y:%H:%M:%S.") + f"{t.microsecond // 1000:03d}"
        day = f"{t.day:>2}"
        return f"{t.strftime('%b')} {day} {t.strftime('%H:%M:%S')} {pick('lb1', 'lb2')} haproxy[{R.choice([1187, 1188, 2290])}]: {m.replace('{CLF}', clf)}"
    return build("HAProxy", T, line, top=0)


# ---------- 7. RabbitMQ (3.9+ default console/file format) ----------
def rabbitmq():
    def pid(): return f"<0.{R.randint(100, 99999)}.0>"
    def cn(): return f"{ip()}:{port()} -> {ip()}:5672"
    T = [
        ("info", lambda: f"accepting AMQP connection {pid()} ({cn()})"),
        ("info", lambda: f"connection {pid()} ({cn()}): user '{R.choice(USERS)}' authenticated and granted access to vhost '{pick('/', 'orders', 'billing')}'"),
        ("info", lambda: f"closing AMQP connection {pid()} ({cn()}, vhost: '{pick('/', 'orders', 'billing')}', user: '{R.choice(USERS)}')"),
        ("warning", lambda: f"closing AMQP connection {pid()} ({cn()}, vhost: '{pick('/', 'orders')}', user: '{R.choice(USERS)}'):\n".rstrip("\n") + f" client unexpectedly closed TCP connection"),
        ("error", lambda: f"Error on AMQP connection {pid()} ({cn()}, vhost: '{pick('/', 'orders')}', user: '{R.choice(USERS)}', state: running), channel {R.randint(1, 9)}: operation basic.{pick('publish', 'consume')} caused a channel exception not_found: no exchange '{R.choice(WORDS)}.{pick('events', 'dlx')}' in vhost '{pick('/', 'orders')}'"),
        ("info", lambda: f"Connection {pid()} ({cn()}) has a client-provided name: {R.choice(SVCS)}-{hx(6)}"),
        ("warning", lambda: f"Consumer {R.randint(1, 99)} on channel {R.randint(1, 9)} has timed out waiting for delivery acknowledgement. Timeout used: {R.choice([1800000, 900000])} ms. This timeout value can be configured, see consumers doc guide to learn more"),
        ("info", lambda: f"Waiting for Mnesia tables for {R.choice([30000, 60000])} ms, {R.randint(0, 9)} retries left"),
        ("info", lambda: f"Successfully synced tables from a peer"),
        ("info", lambda: f"rabbit on node 'rabbit@{pick('rabbitmq-0', 'rabbitmq-1', 'rabbitmq-2')}.rabbitmq-nodes.{R.choice(NS)}' {pick('up', 'down')}"),
        ("warning", lambda: f"memory resource limit alarm set on node 'rabbit@{pick('rabbitmq-0', 'rabbitmq-1')}.rabbitmq-nodes.{R.choice(NS)}'."),
        ("info", lambda: f"Stopping message store for directory '/var/lib/rabbitmq/mnesia/rabbit@{pick('rabbitmq-0', 'rabbitmq-1')}/msg_stores/vhosts/{hx(25).upper()}/msg_store_{pick('persistent', 'transient')}'"),
        ("info", lambda: f"Message store for directory '/var/lib/rabbitmq/mnesia/rabbit@{pick('rabbitmq-0', 'rabbitmq-1')}/msg_stores/vhosts/{hx(25).upper()}/msg_store_{pick('persistent', 'transient')}' is stopped"),
        ("info", lambda: f"Mirrored queue '{R.choice(WORDS)}.{pick('work', 'retry')}' in vhost '{pick('/', 'orders')}': Adding mirror on node 'rabbit@{pick('rabbitmq-0', 'rabbitmq-1')}': {pid()}"),
        ("info", lambda: f"Ready to start client connection listeners"),
        ("info", lambda: f"started TCP listener on [::]:{pick('5672', '15672', '15692')}"),
        ("error", lambda: f"Channel error on connection {pid()} ({cn()}, vhost: '/', user: '{R.choice(USERS)}'), channel {R.randint(1, 9)}:\noperation queue.declare caused a channel exception precondition_failed: inequivalent arg 'x-queue-type' for queue '{R.choice(WORDS)}' in vhost '/': received none but current is the value 'quorum' of type 'longstr'".replace("\n", " ")),
        ("info", lambda: f"queue '{R.choice(WORDS)}.{pick('work', 'retry')}' in vhost '{pick('/', 'orders')}': leader saw pre_vote_rpc from {{'%2F_{R.choice(WORDS)}','rabbit@rabbitmq-{R.randint(0, 2)}'}} for term {R.randint(1, 99)} abdicates term: {R.randint(1, 99)}!"),
        ("warning", lambda: f"HTTP access denied: user '{R.choice(USERS)}' - invalid credentials"),
    ]

    def line(t, lvl, m):
        return f"{t.strftime('%Y-%m-%d %H:%M:%S.%f')}+00:00 [{lvl}] {pid()} {m}"
    return build("RabbitMQ", T, line)


# ---------- 8. Cassandra (system.log, logback pattern) ----------
def cassandra():
    def ks(): return pick("system", "system_schema", "shop", "events", "system_auth")
    def tb(): return R.choice(WORDS)
    def sst(): return f"/var/lib/cassandra/data/{ks()}/{tb()}-{hx(32)}/nb-{R.randint(1, 9999)}-big-Data.db"
    def mib(): return f"{fl(0, 900)}MiB"
    T = [
        ("INFO", "CompactionExecutor:{}", "CompactionTask.java:{}", lambda: f"Compacted ({uuid()}) {R.randint(2, 32)} sstables to [{sst()},] to level=0.  {mib()} to {mib()} (~{R.randint(40, 100)}% of original) in {R.randint(1, 99999):,}ms.  Read Throughput = {mib()}/s, Write Throughput = {mib()}/s, Row Throughput = ~{R.randint(1, 999999):,}/s.  {R.randint(1, 99999):,} total partitions merged to {R.randint(1, 99999):,}.  Partition merge counts were {{1:{R.randint(1, 9999)}, 2:{R.randint(1, 999)}, }}"),
        ("INFO", "CompactionExecutor:{}", "CompactionTask.java:{}", lambda: f"Compacting ({uuid()}) [{sst()}:level=0, {sst()}:level=0, ]"),
        ("INFO", "NativePoolCleaner", "ColumnFamilyStore.java:{}", lambda: f"Enqueuing flush of {tb()}: {mib()} ({R.randint(0, 99)}%) on-heap, {mib()} ({R.randint(0, 99)}%) off-heap"),
        ("INFO", "PerDiskMemtableFlushWriter_0:{}", "Memtable.java:{}", lambda: f"Writing Memtable-{tb()}@{R.randint(10**8, 2 * 10**9)}({mib()} serialized bytes, {R.randint(1, 99999)} ops, {R.randint(0, 99)}%/{R.randint(0, 99)}% of on/off-heap limit), flushed range = (min(-9223372036854775808), max(9223372036854775807)]"),
        ("INFO", "PerDiskMemtableFlushWriter_0:{}", "Memtable.java:{}", lambda: f"Completed flushing {sst()} ({mib()}) for commitlog position CommitLogPosition(segmentId={R.randint(10**12, 2 * 10**12)}, position={R.randint(1, 9999999)})"),
        ("WARN", "ReadStage-{}", "ReadCommand.java:{}", lambda: f"Read {R.randint(1, 5000)} live rows and {R.randint(1001, 100000)} tombstone cells for query SELECT * FROM {ks()}.{tb()} WHERE id = {uuid()} LIMIT {R.choice([100, 5000])}; token {R.randint(-9 * 10**18, 9 * 10**18)} (see tombstone_warn_threshold)"),
        ("INFO", "ScheduledTasks:1", "NoSpamLogger.java:{}", lambda: f"Some operations were slow, details available at debug level (debug.log)"),
        ("WARN", "GossipTasks:1", "FailureDetector.java:{}", lambda: f"Not marking nodes down due to local pause of {R.randint(5000000000, 99000000000)}ns > 5000000000ns"),
        ("INFO", "GossipStage:1", "Gossiper.java:{}", lambda: f"InetAddress /{ip()}:7000 is now {pick('DOWN', 'UP')}"),
        ("INFO", "HANDSHAKE-/{}", "OutboundTcpConnection.java:{}", lambda: f"Handshaking version with /{ip()}"),
        ("INFO", "Service Thread", "GCInspector.java:{}", lambda: f"{pick('G1 Young Generation', 'ParNew', 'G1 Old Generation')} GC in {R.randint(200, 9000)}ms.  {pick('G1 Eden Space', 'Par Eden Space')}: {R.randint(10**8, 10**10)} -> {R.randint(0, 10**8)}; G1 Old Gen: {R.randint(10**8, 10**10)} -> {R.randint(10**8, 10**10)}; "),
        ("WARN", "Native-Transport-Requests-{}", "BatchStatement.java:{}", lambda: f"Batch for [{ks()}.{tb()}] is of size {fl(5, 90, 3)}KiB, exceeding specified threshold of 5.000KiB by {fl(0, 85, 3)}KiB."),
        ("ERROR", "Native-Transport-Requests-{}", "ErrorMessage.java:{}", lambda: f"Unexpected exception during request; channel = [id: 0x{hx(8)}, L:/{ip()}:9042 - R:/{ip()}:{port()}]"),
        ("INFO", "OptionalTasks:1", "CassandraRoleManager.java:{}", lambda: f"Created default superuser role 'cassandra'"),
        ("WARN", "CompactionExecutor:{}", "BigTableWriter.java:{}", lambda: f"Writing large partition {ks()}/{tb()}:{R.choice(['user-', 'evt-'])}{R.randint(1, 99999)} ({mib()}) to sstable {sst()}"),
        ("INFO", "main", "StorageService.java:{}", lambda: f"Node /{ip()}:7000 state jump to NORMAL"),
        ("ERROR", "MessagingService-Outgoing-/{}", "OutboundTcpConnection.java:{}", lambda: f"Connection to /{ip()}:7000 failed: io.netty.channel.unix.Errors$NativeIoException: writeAddress(..) failed: Connection reset by peer"),
        ("INFO", "MigrationStage:1", "ColumnFamilyStore.java:{}", lambda: f"Initializing {ks()}.{tb()}"),
        ("WARN", "ReadStage-{}", "AbstractLocalAwareExecutorService.java:{}", lambda: f"Uncaught exception on thread Thread[ReadStage-{R.randint(1, 32)},5,main]: {{}}"),
    ]

    def line(t, lvl, m):
        level, th, loc, fn = m
        th = th.format(R.choice([R.randint(1, 32), ip()]) if "/" in th else R.randint(1, 32))
        loc = loc.format(R.randint(40, 1500))
        return f"{level:<5} [{th}] {t.strftime('%Y-%m-%d %H:%M:%S')},{t.microsecond // 1000:03d} {loc} - {fn()}"
    return build("Cassandra", [(None, (lambda t=t: t)) for t in T], line)


# ---------- 9. Vault (hclog) ----------
def vault():
    def ac(): return f"{pick('auth/kubernetes/', 'auth/approle/', 'auth/token/', 'auth/oidc/')}"
    T = [
        ("INFO", lambda: f"core: successful mount: namespace=\"\" path={pick('secret/', 'pki/', 'transit/', 'kv-v2/', 'database/')} type={pick('kv', 'pki', 'transit', 'database')} version=\"\""),
        ("INFO", lambda: f"expiration: revoked lease: lease_id={ac()}login/{hx(40)}"),
        ("ERROR", lambda: f"core: failed to run existence check: error=\"{pick('permission denied', 'unsupported path', 'context canceled')}\""),
        ("INFO", lambda: f"core: vault is unsealed"),
        ("INFO", lambda: f"core.cluster-listener.tcp: starting listener: listener_address=0.0.0.0:8201"),
        ("INFO", lambda: f"core: acquired lock, enabling active operation"),
        ("WARN", lambda: f"core: leadership lost, stopping active operation"),
        ("ERROR", lambda: f"auth.kubernetes.auth_kubernetes_{hx(8)}: login unauthorized: err=\"lookup failed: service account unauthorized; this could mean it has been deleted or recreated with a new token\""),
        ("ERROR", lambda: f"storage.raft: failed to heartbeat to: peer={ip()}:8201 backoff time={R.choice([10, 20, 40, 80, 160])}ms error=\"dial tcp {ip()}:8201: connect: connection refused\""),
        ("INFO", lambda: f"storage.raft: entering follower state: follower=\"Node at {ip()}:8201 [Follower]\" leader-address= leader-id="),
        ("WARN", lambda: f"storage.raft: heartbeat timeout reached, starting election: last-leader-addr={ip()}:8201 last-leader-id={pick('vault-0', 'vault-1', 'vault-2')}"),
        ("INFO", lambda: f"storage.raft: election won: term={R.randint(2, 400)} tally={R.randint(2, 3)}"),
        ("ERROR", lambda: f"core: error during forwarded RPC request: error=\"rpc error: code = Canceled desc = context canceled\""),
        ("INFO", lambda: f"rollback: starting rollback manager"),
        ("INFO", lambda: f"expiration: lease restore complete"),
        ("ERROR", lambda: f"secrets.database.database_{hx(8)}: error creating database object: error=\"error verifying connection: dial tcp {ip()}:5432: i/o timeout\""),
        ("WARN", lambda: f"core: token ttl exceeds max ttl: accessor={hx(24)} ttl={R.randint(60, 10**6)}s max_ttl={R.choice([3600, 86400, 2764800])}s"),
        ("INFO", lambda: f"storage.raft.snapshot: creating new snapshot: path=/vault/data/raft/snapshots/{R.randint(2, 400)}-{R.randint(10**5, 10**8)}-{R.randint(10**12, 2 * 10**12)}.tmp"),
        ("INFO", lambda: f"storage.raft: compacting logs: from={R.randint(1, 10**6)} to={R.randint(10**6, 10**7)}"),
        ("INFO", lambda: f"http: TLS handshake error from {ip()}:{port()}: {pick('EOF', 'remote error: tls: bad certificate', 'read tcp 10.0.0.5:8200: connection reset by peer')}"),
    ]

    def line(t, lvl, m):
        return f"{t.strftime('%Y-%m-%dT%H:%M:%S.')}{t.microsecond // 1000:03d}Z [{lvl}]{' ' * (6 - len(lvl))}{m}"
    return build("Vault", T, line)


# ---------- 10. ClickHouse (server log) ----------
def clickhouse():
    def qid(): return uuid()
    def rows(): return f"{R.randint(1, 10**8):,}".replace(",", "")
    def kib(): return f"{fl(1, 999, 2)} {pick('B', 'KiB', 'MiB', 'GiB')}"
    def part(): return f"{pick('all', '202612', '20261207')}_{R.randint(1, 9999)}_{R.randint(1, 9999)}_{R.randint(0, 9)}"
    def tbl(): return f"{R.choice(DBS)}.{R.choice(WORDS)} ({uuid()})"
    T = [
        ("Debug", "executeQuery", True, lambda: f"(from {ip()}:{port()}, user: {R.choice(USERS)}) SELECT count() FROM {R.choice(DBS)}.{R.choice(WORDS)} WHERE ts > now() - {R.randint(1, 3600)} (stage: Complete)"),
        ("Information", "executeQuery", True, lambda: f"Read {rows()} rows, {kib()} in {fl(0, 30, 6)} sec., {rows()} rows/sec., {kib()}/sec."),
        ("Debug", "MemoryTracker", True, lambda: f"Peak memory usage (for query): {kib()}."),
        ("Debug", "TCPHandler", True, lambda: f"Processed in {fl(0, 30, 6)} sec."),
        ("Trace", "{tbl} (MergerMutator)", False, lambda: f"Selected {R.randint(2, 12)} parts from {part()} to {part()}"),
        ("Debug", "{tbl} (MergeTask::PrepareStage)", False, lambda: f"Merging {R.randint(2, 12)} parts: from {part()} to {part()} into {pick('Compact', 'Wide')} with storage Full"),
        ("Debug", "MergeTreeSequentialSource", False, lambda: f"Reading {R.randint(1, 99)} marks from part {part()}, total {R.randint(1, 99999)} rows starting from the beginning of the part"),
        ("Trace", "{tbl}", False, lambda: f"Renaming temporary part tmp_merge_{part()} to {part()} with tid ({R.randint(1, 9)}, {R.randint(1, 9)}, 00000000-0000-0000-0000-000000000000)."),
        ("Information", "{tbl}", False, lambda: f"Removed {R.randint(1, 99)} old parts"),
        ("Error", "executeQuery", True, lambda: f"Code: 60. DB::Exception: Table {R.choice(DBS)}.{R.choice(WORDS)}_tmp does not exist. (UNKNOWN_TABLE) (version 23.{R.randint(3, 12)}.{R.randint(1, 9)}.{R.randint(1, 99)} (official build)) (from {ip()}:{port()}) (in query: SELECT * FROM {R.choice(DBS)}.{R.choice(WORDS)}_tmp)"),
        ("Error", "TCPHandler", True, lambda: f"Code: 241. DB::Exception: Memory limit (for query) exceeded: would use {kib()} (attempt to allocate chunk of {R.randint(10**5, 10**8)} bytes), maximum: {kib()}.: While executing AggregatingTransform. (MEMORY_LIMIT_EXCEEDED)"),
        ("Warning", "{tbl}", False, lambda: f"Removing temporary directory /var/lib/clickhouse/store/{hx(3)}/{uuid()}/tmp_merge_{part()}/"),
        ("Information", "DiskLocal", False, lambda: f"Reserved {kib()} on local disk `default`, having unreserved {kib()}."),
        ("Debug", "DNSResolver", False, lambda: f"Updating DNS cache"),
        ("Debug", "DNSResolver", False, lambda: f"Updated DNS cache"),
        ("Trace", "SystemLog (system.{})", False, lambda: f"Flushing system log, {R.randint(1, 9999)} entries to flush up to offset {R.randint(1, 10**6)}"),
        ("Trace", "SystemLog (system.{})", False, lambda: f"Flushed system log up to offset {R.randint(1, 10**6)}"),
        ("Debug", "TCP-Session", True, lambda: f"{uuid()} Authenticated with global context as user {uuid()}"),
        ("Warning", "ReplicatedMergeTreeRestartingThread", False, lambda: f"Table was in readonly mode. Will try to activate it."),
        ("Error", "ZooKeeperClient", False, lambda: f"Code: 999. Coordination::Exception: Session expired (Session expired). (KEEPER_EXCEPTION)"),
    ]

    def line(t, lvl, m):
        level, comp, has_q, fn = m
        comp = comp.replace("{tbl}", tbl()).replace("{}", pick("query_log", "trace_log", "metric_log", "part_log"))
        q = f"{{{qid()}}} " if has_q else ""
        return f"{t.strftime('%Y.%m.%d %H:%M:%S.%f')} [ {R.randint(50, 999)} ] {q}<{level}> {comp}: {fn()}"
    return build("ClickHouse", [(None, (lambda t=t: t)) for t in T], line)


GENS = [mariadb, mongodb, envoy, coredns, containerd, haproxy, rabbitmq, cassandra, vault, clickhouse]


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    for g in GENS:
        lines, truth = g()
        name = truth[0].split("-E")[0]
        assert len(lines) == N and all("\n" not in l for l in lines), name
        with open(os.path.join(out, name + ".log"), "w") as f:
            f.write("\n".join(lines) + "\n")
        with open(os.path.join(out, name + ".truth"), "w") as f:
            f.write("\n".join(truth) + "\n")
        print(name, len(set(truth)), "templates")


if __name__ == "__main__":
    main()
