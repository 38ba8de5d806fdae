/*
 * manifest.h - the layer list of a `docker save` archive: manifest.json is
 * a JSON array of images, each with "Layers", the layer archives' paths in
 * the archive, bottom layer first. Only the first image is taken.
 */
#ifndef ENGINE_MANIFEST_H
#define ENGINE_MANIFEST_H

#define MANIFEST_MAX_LAYERS 127

/* Parses text; fills layers (malloc'ed strings) and returns their count,
 * or -1 (fail.h). */
int manifest_layers(const char *text, char **layers);

#endif
