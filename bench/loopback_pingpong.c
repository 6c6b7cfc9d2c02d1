// Loopback TCP round trip between two processes, 100-byte messages, 20,000 round trips: what a
// wake-up costs on this machine, apart from any HTTP or inference (docs/serving.md, "Waking
// sleeping CPUs"). Not built by CMake; run by hand:
//   gcc -O2 -pthread bench/loopback_pingpong.c -o /tmp/pingpong && /tmp/pingpong MODE
// MODE: block (both ends block in recv), spin (the server polls its socket), idle-spinners
// (a SCHED_IDLE thread spins on each of CPUs 0 and 1, so none halts), pm-qos (holds
// /dev/cpu_dma_latency at 0, as strata serve --cpu-wakeup-latency-us 0 does; needs root).
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

enum { kRoundTrips = 20000, kBytes = 100 };
static volatile int stop_spinning = 0;

static double now_us(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1e6 + t.tv_nsec / 1e3;
}

static int by_value(const void* a, const void* b) {
  const double x = *(const double*)a, y = *(const double*)b;
  return x < y ? -1 : x > y;
}

static void* spin_when_idle(void* cpu) {
  struct sched_param none = {0};
  pthread_setschedparam(pthread_self(), SCHED_IDLE, &none);
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET((int)(intptr_t)cpu, &set);
  pthread_setaffinity_np(pthread_self(), sizeof set, &set);
  while (!stop_spinning) __builtin_ia32_pause();
  return NULL;
}

int main(int argc, char** argv) {
  const char* mode = argc > 1 ? argv[1] : "block";
  const int spin_server = strcmp(mode, "spin") == 0;
  if (strcmp(mode, "pm-qos") == 0) {
    const int fd = open("/dev/cpu_dma_latency", O_WRONLY);  // held until exit
    const int32_t zero = 0;
    if (fd < 0 || write(fd, &zero, sizeof zero) != sizeof zero) return perror("/dev/cpu_dma_latency"), 1;
  }
  pthread_t spinners[2];
  const int idle_spinners = strcmp(mode, "idle-spinners") == 0;
  if (idle_spinners)
    for (intptr_t cpu = 0; cpu < 2; ++cpu) pthread_create(&spinners[cpu], NULL, spin_when_idle, (void*)cpu);

  const int one = 1;
  const int listener = socket(AF_INET, SOCK_STREAM, 0);
  setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  struct sockaddr_in address = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
  socklen_t length = sizeof address;
  if (bind(listener, (struct sockaddr*)&address, sizeof address) != 0) return perror("bind"), 1;
  getsockname(listener, (struct sockaddr*)&address, &length);  // the free port bind chose
  listen(listener, 1);

  const pid_t server = fork();
  if (server == 0) {  // echoes every message back
    const int peer = accept(listener, NULL, NULL);
    setsockopt(peer, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    char buffer[256];
    for (;;) {
      ssize_t n;
      do n = recv(peer, buffer, sizeof buffer, spin_server ? MSG_DONTWAIT : 0);
      while (n < 0 && errno == EAGAIN);
      if (n <= 0) _exit(0);
      send(peer, buffer, (size_t)n, 0);
    }
  }
  const int client = socket(AF_INET, SOCK_STREAM, 0);
  if (connect(client, (struct sockaddr*)&address, sizeof address) != 0) return perror("connect"), 1;
  setsockopt(client, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  static double round_trips[kRoundTrips];
  char message[kBytes] = {0};
  for (int i = 0; i < kRoundTrips; ++i) {
    const double start = now_us();
    send(client, message, kBytes, 0);
    for (ssize_t got = 0; got < kBytes;) got += recv(client, message + got, kBytes - (size_t)got, 0);
    round_trips[i] = now_us() - start;
  }
  close(client);
  waitpid(server, NULL, 0);
  stop_spinning = 1;
  if (idle_spinners)
    for (int cpu = 0; cpu < 2; ++cpu) pthread_join(spinners[cpu], NULL);
  qsort(round_trips, kRoundTrips, sizeof(double), by_value);
  printf("%s: p50 %.1f us, p99 %.1f us\n", mode, round_trips[kRoundTrips / 2], round_trips[kRoundTrips * 99 / 100]);
  return 0;
}
