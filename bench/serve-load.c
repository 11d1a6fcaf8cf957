/*
 * The serve bench's clients in C: the same load as bench/serve-load.ts (50 page clients reading the event
 * stream, 1,000 token-checked requests over two kept-alive connections, the same requests, headers and
 * bodies, the same pacing and the same report), for a small share of its CPU. In real use the clients sit on
 * other machines (a phone, a browser elsewhere); on the bench's 2 cores every millisecond they take is taken
 * beside the run being measured, and node's clients took as much CPU as the server they load (about 0.4 ms a
 * request, most of it node's own event loop, streams and timers). One thread, one epoll loop.
 *
 *   serve-load <url> <token> <spanMs> [clients] [requests]
 *
 * Prints `ready` once every stream's answer head came with 200, starts the requests on a `go` line on stdin,
 * and when stdin closes (the bench closes it when the run has ended) finishes sending the requests at their
 * pace, then prints one JSON line {sent, failed, read, cpuMs, answeredInRun, latency, notModified}.
 * BENCH_SERVE_CONDITIONAL=1 and BENCH_SERVE_BURST=N as for bench/serve-load.ts.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define MAX_CLIENTS 1024
#define MAX_REQUESTS 100000
#define BUFFER_BYTES (256 * 1024)
/* The stream clients' ids in epoll are 0..clients-1; these are the others'. */
#define ID_STDIN 1000000
#define ID_CONNECTION 1000001

static char host[128];
static char token[512];
static int port;
static int epoll_fd;

static double now_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1000.0 + t.tv_nsec / 1e6;
}

static double cpu_ms(void) {
  struct rusage usage;
  getrusage(RUSAGE_SELF, &usage);
  return (usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) * 1000.0 +
         (usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1000.0;
}

static void fail(const char *what) {
  fprintf(stderr, "serve-load: %s: %s\n", what, strerror(errno));
  exit(1);
}

/* A connection to the server, non-blocking, registered in epoll under `id`. */
static int open_socket(uint64_t id) {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) fail("socket");
  struct sockaddr_in address = {.sin_family = AF_INET, .sin_port = htons(port)};
  inet_pton(AF_INET, "127.0.0.1", &address.sin_addr);
  if (connect(fd, (struct sockaddr *)&address, sizeof address) < 0) {
    close(fd);
    return -1;
  }
  int one = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
  struct epoll_event event = {.events = EPOLLIN, .data.u64 = id};
  if (epoll_ctl(epoll_fd, EPOLL_CTL_ADD, fd, &event) < 0) fail("epoll_ctl");
  return fd;
}

/* Writes all of `text` on a socket the kernel takes it on at once (a request is a few hundred bytes). */
static int send_all(int fd, const char *text, size_t length) {
  while (length > 0) {
    /* MSG_NOSIGNAL: a connection the server reset is a failed request (as in node), not a SIGPIPE. */
    ssize_t written = send(fd, text, length, MSG_NOSIGNAL);
    if (written < 0 && errno == EINTR) continue;
    if (written <= 0) return -1;
    text += written;
    length -= (size_t)written;
  }
  return 0;
}

/* ---- the event-stream clients ---- */

struct stream {
  int fd;
  int headed;
  long bytes;
  /* The answer's head until its blank line has come (it may come in more than one read). */
  char head[1024];
  size_t head_length;
};
static struct stream streams[MAX_CLIENTS];
static int stream_count;
static int streams_open;
static long stream_bytes;

static void read_stream(struct stream *s) {
  char buffer[65536];
  for (;;) {
    ssize_t got = read(s->fd, buffer, sizeof buffer);
    if (got > 0) {
      size_t body = (size_t)got;
      if (!s->headed) {
        /* 200 counts the stream open; what follows the head's blank line is body. */
        size_t room = sizeof s->head - s->head_length;
        size_t take = (size_t)got < room ? (size_t)got : room;
        memcpy(s->head + s->head_length, buffer, take);
        size_t before = s->head_length;
        s->head_length += take;
        char *end = memmem(s->head, s->head_length, "\r\n\r\n", 4);
        if (!end) continue;
        s->headed = 1;
        if (s->head_length > 12 && memcmp(s->head + 9, "200", 3) == 0 && ++streams_open == stream_count) {
          fputs("ready\n", stdout);
          fflush(stdout);
        }
        body = (size_t)got - ((size_t)(end + 4 - s->head) - before);
      }
      /* Bytes as they came on the socket, the chunked framing included (node's clients count the body
       * decoded: a few per cent fewer); only whether the streams read anything is checked. */
      s->bytes += (long)body;
      continue;
    }
    if (got < 0 && (errno == EAGAIN || errno == EINTR)) return;
    /* Closed by the server. */
    epoll_ctl(epoll_fd, EPOLL_CTL_DEL, s->fd, NULL);
    close(s->fd);
    stream_bytes += s->bytes;
    s->bytes = 0;
    s->fd = -1;
    return;
  }
}

/* ---- the requests ---- */

struct connection {
  int fd;
  char buffer[BUFFER_BYTES];
  size_t filled;
  int waiting;      /* a request sent, its answer not read yet */
  double sent_at;   /* when it was sent */
  int kind;         /* its kind (0 run list, 1 run view, 2 wrong token, 3 answer) */
  int read_index;   /* for a read: which of the two reads (its tag is kept per connection) */
  char etags[2][128];
  int in_burst;
  double burst_started;
  double next_at;   /* when it sends its next request (0: now) */
};
static struct connection connections[2];

static int requests_total;
static int sent;
static int failed;
static int not_modified;
static int conditional;
static int burst;
static double gap;
static char run_id[128];
static double *latencies;
static int latency_count;
static int started;      /* `go` came */
static int input_closed; /* stdin closed: the run ended */
static int answered_in_run = -1;

/* Finds a header's value in an answer's head (case-insensitive name); copies it into `out`. */
static int header_value(const char *head, size_t length, const char *name, char *out, size_t size) {
  size_t name_length = strlen(name);
  for (const char *line = head; line < head + length;) {
    const char *eol = memmem(line, (size_t)(head + length - line), "\r\n", 2);
    if (!eol) eol = head + length;
    if ((size_t)(eol - line) > name_length && strncasecmp(line, name, name_length) == 0 &&
        line[name_length] == ':') {
      const char *value = line + name_length + 1;
      while (value < eol && *value == ' ') value++;
      size_t n = (size_t)(eol - value);
      if (n >= size) n = size - 1;
      memcpy(out, value, n);
      out[n] = 0;
      return 1;
    }
    line = eol + 2;
  }
  return 0;
}

static void connection_lost(struct connection *c) {
  if (c->fd >= 0) {
    epoll_ctl(epoll_fd, EPOLL_CTL_DEL, c->fd, NULL);
    close(c->fd);
  }
  c->fd = -1;
  c->filled = 0;
}

/* The request's pacing after an answer (or a failure): each connection sends its half of a burst back to
 * back, then waits out the burst's share of the span. */
static void paced(struct connection *c) {
  if (2 * ++c->in_burst < burst) {
    c->next_at = 0;
    return;
  }
  c->next_at = c->burst_started + burst * gap;
  c->in_burst = 0;
}

static void send_next(struct connection *c) {
  if (sent >= requests_total) return;
  if (c->in_burst == 0) c->burst_started = now_ms();
  int n = sent++;
  int kind = n % 4;
  if (kind == 1 && !run_id[0]) kind = 3;
  if (c->fd < 0) c->fd = open_socket(ID_CONNECTION + (uint64_t)(c - connections));
  if (c->fd < 0) {
    failed++;
    paced(c);
    return;
  }
  char request[2048];
  int length;
  if (kind == 0 || kind == 1) {
    char path[200];
    snprintf(path, sizeof path, kind == 0 ? "api/runs" : "api/runs/%s", run_id);
    const char *tag = c->etags[kind];
    if (conditional && tag[0])
      length = snprintf(request, sizeof request,
                        "GET /%s HTTP/1.1\r\nhost: %s\r\nauthorization: Bearer %s\r\nif-none-match: %s\r\n\r\n",
                        path, host, token, tag);
    else
      length = snprintf(request, sizeof request, "GET /%s HTTP/1.1\r\nhost: %s\r\nauthorization: Bearer %s\r\n\r\n",
                        path, host, token);
    c->read_index = kind;
  } else if (kind == 2) {
    length = snprintf(request, sizeof request,
                      "GET /api/runs HTTP/1.1\r\nhost: %s\r\nauthorization: Bearer wrong\r\n\r\n", host);
  } else {
    static const char body[] = "{\"requestId\":\"00000000-0000-0000-0000-000000000000\",\"action\":\"approve\"}";
    length = snprintf(request, sizeof request,
                      "POST /api/runs/%s/answer HTTP/1.1\r\nhost: %s\r\nauthorization: Bearer %s\r\n"
                      "content-type: application/json\r\ncontent-length: %zu\r\n\r\n%s",
                      run_id[0] ? run_id : "x", host, token, sizeof body - 1, body);
  }
  c->kind = kind;
  c->sent_at = now_ms();
  if (send_all(c->fd, request, (size_t)length) < 0) {
    connection_lost(c);
    failed++;
    paced(c);
    return;
  }
  c->waiting = 1;
}

/* Takes one whole answer off the buffer when it is there; returns 1 when it did. */
static int take_answer(struct connection *c) {
  char *end = memmem(c->buffer, c->filled, "\r\n\r\n", 4);
  if (!end) return 0;
  size_t head_length = (size_t)(end - c->buffer);
  int status = atoi(c->buffer + 9);
  char value[128];
  size_t body_length = 0;
  size_t total;
  char *body = end + 4;
  if (status == 304 || status == 204) {
    total = head_length + 4;
  } else if (header_value(c->buffer, head_length, "content-length", value, sizeof value)) {
    body_length = (size_t)atol(value);
    total = head_length + 4 + body_length;
    if (c->filled < total) return 0;
  } else {
    /* Chunked: complete at the last, empty chunk (the body is not read for anything then). */
    char *last = memmem(end, c->filled - head_length, "\r\n0\r\n\r\n", 7);
    if (!last) return 0;
    total = (size_t)(last + 7 - c->buffer);
    body_length = last > body ? (size_t)(last - body) : 0;
  }
  latencies[latency_count++] = now_ms() - c->sent_at;
  if (status == 304) not_modified++;
  if (conditional && status == 200 && (c->kind == 0 || c->kind == 1) &&
      header_value(c->buffer, head_length, "etag", value, sizeof value))
    strcpy(c->etags[c->read_index], value);
  if (c->kind == 0 && !run_id[0] && status == 200 && body_length > 0) {
    char *id = memmem(body, body_length, "\"runId\":\"", 9);
    if (id) {
      id += 9;
      char *close_quote = memchr(id, '"', body_length - (size_t)(id - body));
      if (close_quote && (size_t)(close_quote - id) < sizeof run_id) {
        memcpy(run_id, id, (size_t)(close_quote - id));
        run_id[close_quote - id] = 0;
      }
    }
  }
  memmove(c->buffer, c->buffer + total, c->filled - total);
  c->filled -= total;
  c->waiting = 0;
  paced(c);
  return 1;
}

static void read_connection(struct connection *c) {
  for (;;) {
    if (c->filled == sizeof c->buffer) {
      connection_lost(c);
      if (c->waiting) failed++, c->waiting = 0, paced(c);
      return;
    }
    ssize_t got = read(c->fd, c->buffer + c->filled, sizeof c->buffer - c->filled);
    if (got > 0) {
      c->filled += (size_t)got;
      while (c->waiting && take_answer(c)) {
      }
      continue;
    }
    if (got < 0 && (errno == EAGAIN || errno == EINTR)) return;
    /* The server closed it (a keep-alive timeout): the request in flight failed; the next one reconnects. */
    connection_lost(c);
    if (c->waiting) {
      c->waiting = 0;
      failed++;
      paced(c);
    }
    return;
  }
}

static int compare(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

/* The p-th fraction of the sorted latencies, as bench/serve-load.ts takes it. */
static double percentile(double p) {
  if (latency_count == 0) return 0;
  int at = (int)(p * latency_count);
  return latencies[at < latency_count ? at : latency_count - 1];
}

static void read_input(void) {
  char buffer[256];
  ssize_t got = read(STDIN_FILENO, buffer, sizeof buffer - 1);
  if (got > 0) {
    buffer[got] = 0;
    if (strstr(buffer, "go") && !started) started = 1;
    return;
  }
  if (got < 0 && errno == EINTR) return;
  input_closed = 1;
  epoll_ctl(epoll_fd, EPOLL_CTL_DEL, STDIN_FILENO, NULL);
}

int main(int argc, char **argv) {
  if (argc < 4) {
    fputs("usage: serve-load <url> <token> <spanMs> [clients] [requests]\n", stderr);
    return 2;
  }
  if (sscanf(argv[1], "http://%127[^/]", host) != 1 || !strchr(host, ':')) {
    fputs("serve-load: the url must be http://127.0.0.1:PORT/\n", stderr);
    return 2;
  }
  port = atoi(strchr(host, ':') + 1);
  snprintf(token, sizeof token, "%s", argv[2]);
  double span = atof(argv[3]);
  stream_count = argc > 4 ? atoi(argv[4]) : 50;
  requests_total = argc > 5 ? atoi(argv[5]) : 1000;
  if (stream_count < 0 || stream_count > MAX_CLIENTS || requests_total < 0 || requests_total > MAX_REQUESTS) {
    fputs("serve-load: clients 0-1024, requests 0-100000\n", stderr);
    return 2;
  }
  const char *conditional_env = getenv("BENCH_SERVE_CONDITIONAL");
  conditional = conditional_env && strcmp(conditional_env, "1") == 0;
  const char *burst_env = getenv("BENCH_SERVE_BURST");
  burst = burst_env ? atoi(burst_env) : 2;
  if (burst < 2) burst = 2;
  gap = requests_total ? span / requests_total : 0;
  latencies = calloc((size_t)requests_total + 1, sizeof *latencies);

  epoll_fd = epoll_create1(0);
  if (epoll_fd < 0) fail("epoll_create1");
  struct epoll_event input = {.events = EPOLLIN, .data.u64 = ID_STDIN};
  epoll_ctl(epoll_fd, EPOLL_CTL_ADD, STDIN_FILENO, &input);

  if (stream_count == 0) {
    fputs("ready\n", stdout);
    fflush(stdout);
  }
  char stream_request[1024];
  int stream_request_length =
      snprintf(stream_request, sizeof stream_request,
               "GET /api/events HTTP/1.1\r\nHost: %s\r\nAuthorization: Bearer %s\r\nConnection: keep-alive\r\n\r\n",
               host, token);
  for (int i = 0; i < stream_count; i++) {
    streams[i].fd = open_socket((uint64_t)i);
    if (streams[i].fd < 0 || send_all(streams[i].fd, stream_request, (size_t)stream_request_length) < 0)
      fail("opening an event stream");
  }
  for (int i = 0; i < 2; i++) connections[i].fd = -1;

  double cpu_at_go = 0;
  struct epoll_event events[64];
  /* Bounded: every turn either waits for an event or a pacing deadline, and the loop ends once stdin closed
   * and every request was answered or failed (each connection has at most one in flight). */
  for (;;) {
    if (started && cpu_at_go == 0) cpu_at_go = cpu_ms() + 1e-9;
    double now = now_ms();
    int timeout = -1;
    if (started) {
      for (int i = 0; i < 2; i++) {
        struct connection *c = &connections[i];
        /* Bounded by the requests: each turn sends one. */
        while (!c->waiting && sent < requests_total && c->next_at <= now) {
          send_next(c);
          now = now_ms();
        }
        if (c->waiting || sent >= requests_total) continue;
        int wait = (int)(c->next_at - now) + 1;
        if (timeout < 0 || wait < timeout) timeout = wait;
      }
    }
    if (input_closed && answered_in_run < 0) answered_in_run = latency_count;
    int in_flight = connections[0].waiting || connections[1].waiting;
    if (input_closed && (!started || (sent >= requests_total && !in_flight))) break;
    int ready = epoll_wait(epoll_fd, events, 64, timeout);
    if (ready < 0 && errno != EINTR) fail("epoll_wait");
    for (int k = 0; k < ready; k++) {
      uint64_t id = events[k].data.u64;
      if (id == ID_STDIN) read_input();
      else if (id >= ID_CONNECTION) {
        struct connection *c = &connections[id - ID_CONNECTION];
        if (c->fd >= 0) read_connection(c);
      } else if (streams[id].fd >= 0) read_stream(&streams[id]);
    }
  }

  for (int i = 0; i < stream_count; i++) {
    if (streams[i].fd >= 0) {
      read_stream(&streams[i]);
      stream_bytes += streams[i].bytes;
    }
  }
  double cpu = started ? cpu_ms() - cpu_at_go : 0;
  qsort(latencies, (size_t)latency_count, sizeof *latencies, compare);
  printf("{\"sent\":%d,\"failed\":%d,\"read\":%ld,\"cpuMs\":%.0f,\"answeredInRun\":%d,"
         "\"latency\":{\"p50Ms\":%.0f,\"p95Ms\":%.0f,\"maxMs\":%.0f},\"notModified\":%d}\n",
         sent, failed, stream_bytes, cpu, answered_in_run < 0 ? latency_count : answered_in_run, percentile(0.5),
         percentile(0.95), latency_count ? latencies[latency_count - 1] : 0, not_modified);
  return 0;
}
