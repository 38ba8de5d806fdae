/*
 * tty.h - run -t: the container's stdin, stdout and stderr are the slave
 * of a pseudo-terminal of the container's own devpts instance, its
 * controlling terminal; the engine relays between its own stdin/stdout and
 * the master (its terminal in raw mode meanwhile, the window size passed
 * on), as docker run -it does.
 *
 * The pair is made inside the container, once its /dev is mounted: a pair
 * of the host's devpts would leave the container's /dev/pts without its
 * slave, and `tty` there would find no name for its stdin. The container's
 * first process sends the master to the engine over a socket (SCM_RIGHTS).
 */
#ifndef ENGINE_TTY_H
#define ENGINE_TTY_H

struct tty {
    int sock[2]; /* [0] the engine's end, [1] the container's */
};

/* In the engine, before the container is made: the socket the master
 * comes back on (close-on-exec). 0 or -1 (fail.h). */
int tty_open(struct tty *t);
/* In the container's first process, after its /dev is mounted: a new
 * pair from /dev/ptmx; a new session whose controlling terminal and
 * standard streams are the slave; the master sent to the engine.
 * 0 or -1 (fail.h). */
int tty_attach(struct tty *t);
/* In the engine, once the container runs: relays until the container's
 * side is closed by all its processes, then restores the terminal. With
 * interactive (-i) the engine's stdin goes to the container too. */
void tty_relay(struct tty *t, int interactive);

#endif
