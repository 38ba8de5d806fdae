/*
 * image_config.h - what an image says about running it: the "config"
 * object of its OCI or docker image configuration (Entrypoint, Cmd, Env,
 * WorkingDir, User). Import reads it, as an image author's hostile input
 * (json.h, every field checked), into the image's record; run takes it
 * back from there, with no JSON.
 */
#ifndef ENGINE_IMAGE_CONFIG_H
#define ENGINE_IMAGE_CONFIG_H

#include "record.h"

#include <stddef.h>

#define IMAGE_CONFIG_MAX_ITEMS 1024 /* in each of Entrypoint, Cmd, Env */
#define IMAGE_CONFIG_MAX_USER 256

struct image_config {
    char **entrypoint, **cmd, **env; /* NULL-ended; NULL when unset */
    char *workdir, *user;           /* NULL when unset */
};

/* Reads the configuration text (len bytes) into rec's fields. 0 or -1
 * (fail.h: the field and what is wrong with it). */
int image_config_import(const char *text, size_t len, struct record *rec);
/* The configuration in an image's record (all unset for an image without
 * one: a directory or a root file-system tarball). */
void image_config_load(const struct record *rec, struct image_config *c);
void image_config_free(struct image_config *c);
/* Whether text is a user as config.User and run -u take it: USER or
 * USER:GROUP, each a name or a number. */
int image_config_user_ok(const char *text);
/* Whether text is an environment entry NAME=VALUE. */
int image_config_env_ok(const char *text);

#endif
