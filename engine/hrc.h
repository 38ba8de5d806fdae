/*
 * hrc.h - `danaus stats --hrc POOL`: for each container of the pool (each
 * mount its danausd served reads of), the hit ratio an LRU cache of its
 * file pages would have against the cache's size, and the knee of that
 * curve (the smallest size within 95% of its largest hit ratio), as the
 * pool's danausd estimates them (fsservice/core/hrc.h). Writes the
 * curves as hrc-POOL.csv and, with gnuplot, hrc-POOL.png in the current
 * directory.
 */
#ifndef ENGINE_HRC_H
#define ENGINE_HRC_H

/* 0, or -1 (fail.h). */
int hrc_show(const char *pool);

#endif
