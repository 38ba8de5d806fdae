/*
 * tty.h - run -t: the container's stdin, stdout and stderr are the slave
 * of a new pseudo-terminal, its controlling terminal; the engine relays
 * between its own stdin/stdout and the master (its terminal in raw mode
 * meanwhile, the window size passed on), as docker run -it does.
 */
#ifndef ENGINE_TTY_H
#define ENGINE_TTY_H

struct tty {
    int master, slave;
};

/* Opens the pair (both close-on-exec). 0 or -1 (fail.h). */
int tty_open(struct tty *t);
/* In the container's first process: a new session whose controlling
 * terminal and standard streams are the slave. 0 or -1 (fail.h). */
int tty_attach(const struct tty *t);
/* In the engine, once the container runs: relays until the container's
 * side is closed by all its processes, then restores the terminal. */
void tty_relay(struct tty *t);

#endif
