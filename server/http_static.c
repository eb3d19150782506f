/* http_static.c -- the browser client's files from memory (http_static.h). */
#include <dirent.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <zlib.h>

#include "server/http_error.h"
#include "server/http_etag.h"
#include "server/http_static.h"
#include "server/log.h"

#define MAX_FILES  256
#define MAX_BYTES  (8 * 1024 * 1024)
#define MAX_DEPTH  4
#define PATH_SIZE  256
#define WEB_PREFIX "/web/"

struct static_file {
    char path[PATH_SIZE]; /* below the folder, e.g. "blokus/board.js" */
    const char *content_type;
    char *body;
    size_t length;
    char *gzip_body; /* the body gzipped, if text and smaller so; else NULL */
    size_t gzip_length;
    char etag[HTTP_ETAG_SIZE]; /* of the body, for either form (http_etag.h) */
};

struct http_static {
    struct static_file files[MAX_FILES];
    int count;
    size_t bytes;      /* of the files */
    size_t gzip_bytes; /* of what a client that accepts gzip is sent of them all */
};

static const struct {
    const char *extension;
    const char *content_type;
} TYPES[] = {
    {".html", "text/html; charset=utf-8"},
    {".js", "text/javascript; charset=utf-8"},
    {".css", "text/css; charset=utf-8"},
    {".svg", "image/svg+xml"},
    {".png", "image/png"},
    {".ico", "image/x-icon"},
    {".json", "application/json"},
    {".txt", "text/plain; charset=utf-8"},
    {".woff2", "font/woff2"},
};

/* The content type of a served file's name, or NULL: not served. */
static const char *type_of(const char *name)
{
    const char *dot = strrchr(name, '.');
    for (size_t i = 0; dot && i < sizeof(TYPES) / sizeof(TYPES[0]); i++)
        if (strcmp(dot, TYPES[i].extension) == 0)
            return TYPES[i].content_type;
    return NULL;
}

/* Whether files of `type` are worth gzipping (text; images and fonts are
 * compressed already). */
static bool is_text(const char *type)
{
    return strncmp(type, "text/", 5) == 0 || strcmp(type, "image/svg+xml") == 0 ||
           strcmp(type, "application/json") == 0;
}

/* Gzips `file`'s body into gzip_body (best compression: done once, at
 * start) when that is smaller. Out of memory the file is served plain. */
static void gzip_file(struct static_file *file)
{
    z_stream stream = {0};
    if (deflateInit2(&stream, Z_BEST_COMPRESSION, Z_DEFLATED, 15 + 16, 9, Z_DEFAULT_STRATEGY) !=
        Z_OK)
        return;
    uLong bound = deflateBound(&stream, (uLong)file->length);
    char *gzipped = malloc(bound);
    stream.next_in = (Bytef *)file->body;
    stream.avail_in = (uInt)file->length;
    stream.next_out = (Bytef *)gzipped;
    stream.avail_out = (uInt)bound;
    if (gzipped && deflate(&stream, Z_FINISH) == Z_STREAM_END && stream.total_out < file->length) {
        file->gzip_body = gzipped;
        file->gzip_length = stream.total_out;
        gzipped = NULL;
    }
    free(gzipped);
    deflateEnd(&stream);
}

static int load_file(struct http_static *files, const char *full, const char *relative,
                     const char *type)
{
    if (files->count == MAX_FILES) {
        log_error("web client: more than %d files", MAX_FILES);
        return -E2BIG;
    }
    FILE *in = fopen(full, "rb");
    struct stat info;
    if (!in || fstat(fileno(in), &info) != 0 || info.st_size > MAX_BYTES - (off_t)files->bytes) {
        log_error("web client: cannot load %s", full);
        if (in)
            fclose(in);
        return -EIO;
    }
    struct static_file *file = &files->files[files->count];
    file->body = malloc((size_t)info.st_size + 1);
    size_t length = file->body ? fread(file->body, 1, (size_t)info.st_size, in) : 0;
    fclose(in);
    if (!file->body || length != (size_t)info.st_size) {
        int rc = file->body ? -EIO : -ENOMEM;
        free(file->body);
        log_error("web client: cannot read %s", full);
        return rc;
    }
    snprintf(file->path, sizeof(file->path), "%s", relative);
    file->content_type = type;
    file->length = length;
    file->gzip_body = NULL;
    http_etag_of(file->body, length, file->etag);
    if (is_text(type))
        gzip_file(file);
    files->bytes += length;
    files->gzip_bytes += file->gzip_body ? file->gzip_length : length;
    files->count++;
    return 0;
}

/* Loads the served files below `folder`/`relative`, `depth` levels down. */
static int load_folder(struct http_static *files, const char *folder, const char *relative,
                       int depth)
{
    char path[2 * PATH_SIZE];
    snprintf(path, sizeof(path), "%s/%s", folder, relative);
    DIR *dir = opendir(path);
    if (!dir)
        return depth == 0 ? 1 : -errno; /* no folder at all: a server without a client */
    int rc = 0;
    struct dirent *entry;
    while (rc == 0 && (entry = readdir(dir)) != NULL) {
        if (entry->d_name[0] == '.')
            continue; /* ".", "..", and hidden files */
        char name[PATH_SIZE], full[3 * PATH_SIZE];
        if (snprintf(name, sizeof(name), "%s%s", relative, entry->d_name) >= (int)sizeof(name))
            continue;
        snprintf(full, sizeof(full), "%s/%s", folder, name);
        struct stat info;
        if (stat(full, &info) != 0)
            continue;
        if (S_ISDIR(info.st_mode) && depth < MAX_DEPTH) {
            char below[PATH_SIZE + 1];
            snprintf(below, sizeof(below), "%s/", name);
            rc = load_folder(files, folder, below, depth + 1);
        } else if (S_ISREG(info.st_mode) && type_of(entry->d_name)) {
            rc = load_file(files, full, name, type_of(entry->d_name));
        }
    }
    closedir(dir);
    return rc;
}

int http_static_new(const char *folder, struct http_static **out)
{
    struct http_static *files = calloc(1, sizeof(*files));
    if (!files)
        return -ENOMEM;
    int rc = load_folder(files, folder, "", 0);
    if (rc < 0) {
        http_static_free(files);
        return rc;
    }
    if (rc > 0)
        log_warn("no web client at %s (setting web-dir): / answers 404", folder);
    else
        log_info("web client: %d files, %zu bytes (%zu gzipped) from %s", files->count,
                 files->bytes, files->gzip_bytes, folder);
    *out = files;
    return 0;
}

int http_static_count(const struct http_static *files)
{
    return files->count;
}

void http_static_free(struct http_static *files)
{
    if (!files)
        return;
    for (int i = 0; i < files->count; i++) {
        free(files->files[i].body);
        free(files->files[i].gzip_body);
    }
    free(files);
}

static const struct static_file *find(const struct http_static *files, const char *path)
{
    for (int i = 0; i < files->count; i++)
        if (strcmp(files->files[i].path, path) == 0)
            return &files->files[i];
    return NULL;
}

/* The headers every answer with `file` carries, plain, gzipped or 304. */
static void describe(const struct static_file *file, transport_http_response *response)
{
    response->content_type = file->content_type;
    response->cache_control = "no-cache";
    response->etag = file->etag;
    response->varies_by_encoding = file->gzip_body != NULL;
}

static void serve(void *context, const transport_http_request *request,
                  transport_http_response *response)
{
    const struct http_static *files = context;
    bool is_index = strcmp(request->path, "/") == 0;
    const struct static_file *file =
        find(files, is_index ? "index.html" : request->path + strlen(WEB_PREFIX));
    if (!file) {
        http_error_respond(response, request->path, 404, "not_found", "no such page");
        return;
    }
    if (http_etag_matches(request->if_none_match, file->etag)) {
        response->status = 304; /* the browser has this version */
        describe(file, response);
        return;
    }
    bool is_gzipped = file->gzip_body && request->accepts_gzip;
    const char *body = is_gzipped ? file->gzip_body : file->body;
    size_t length = is_gzipped ? file->gzip_length : file->length;
    response->body = malloc(length ? length : 1);
    if (!response->body) {
        http_error_respond(response, request->path, 500, "internal",
                           "the server ran out of memory");
        return;
    }
    memcpy(response->body, body, length);
    response->body_length = length;
    response->status = 200;
    describe(file, response);
    response->content_encoding = is_gzipped ? "gzip" : NULL;
}

int http_static_add_routes(http_routes *routes, struct http_static *files)
{
    int rc = http_routes_add(routes, "GET", "/", serve, files);
    if (rc != 0)
        return rc;
    return http_routes_add(routes, "GET", WEB_PREFIX "*", serve, files);
}
