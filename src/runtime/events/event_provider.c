/*
 * event_provider.c - the registry of providers, their call sites and tracepoints.
 *
 * Registering a provider walks a module's "fr_events" section (pointers to call-site
 * descriptors), takes the provider's sites, completes each (default level, the 8-byte
 * header), attaches it to the tracepoint of its (level, keyword), registers it with
 * user_events and sets its flight-recorder bit. Nothing here runs on a hot path; one
 * mutex guards it all. Tracepoints live until the process ends (a call site may still
 * be reading its tracepoint while another thread unregisters the provider).
 *
 * Providers are unregistered at exit, and in a forked child (whose inherited kernel
 * registrations belong to the parent's call sites).
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "events/events_internal.h"

struct fr_provider_state {
    struct fr_provider_state *next;    /* every provider ever registered */
    fr_provider *provider;
    struct fr_tracepoint *tracepoints;
    fr_event_site **sites;
    size_t site_count, site_cap;
    bool registered;
};

static pthread_mutex_t registry_lock = PTHREAD_MUTEX_INITIALIZER;
static struct fr_provider_state *providers;

static bool valid_provider_name(const char *s)
{
    if (!s || !*s)
        return false;
    for (; *s; s++)
        if (*s == ' ' || *s == ':')
            return false;
    return true;
}

static bool valid_group(const char *s)
{
    for (; s && *s; s++)
        if (!((*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9')))
            return false;
    return true;
}

static struct fr_tracepoint *tracepoint_for(struct fr_provider_state *st, uint8_t level,
                                            uint64_t keyword)
{
    for (struct fr_tracepoint *tp = st->tracepoints; tp; tp = tp->next)
        if (tp->level == level && tp->keyword == keyword)
            return tp;
    struct fr_tracepoint *tp = calloc(1, sizeof *tp);
    if (!tp)
        return NULL;
    const fr_provider *p = st->provider;
    int n = snprintf(tp->name, sizeof tp->name, "%s_L%xK%llx%s%s", p->name, level,
                     (unsigned long long)keyword, p->group && *p->group ? "G" : "",
                     p->group ? p->group : "");
    if (n < 0 || (size_t)n >= sizeof tp->name) {
        fprintf(stderr, "flightrec: tracepoint name for provider '%s' is longer than %d bytes\n",
                p->name, FR_EH_NAME_MAX - 1);
        free(tp);
        return NULL;
    }
    tp->name_len = (size_t)n;
    tp->level = level;
    tp->keyword = keyword;
    tp->next = st->tracepoints;
    st->tracepoints = tp;
    return tp;
}

static void build_header(fr_event_site *site)
{
    if (site->level == 0)
        site->level = FR_EH_LEVEL_VERBOSE;
    uint8_t *h = site->header;
    h[0] = FR_EH_FLAGS_DEFAULT | FR_EH_FLAG_EXTENSION;   /* the metadata is always there */
    h[1] = site->version;
    h[2] = (uint8_t)site->id;
    h[3] = (uint8_t)(site->id >> 8);
    h[4] = (uint8_t)site->tag;
    h[5] = (uint8_t)(site->tag >> 8);
    h[6] = site->opcode;
    h[7] = site->level;
}

/* The flight recorder's payload starts with the same bytes on every call of a site that
 * has no activity: tracepoint name NUL, header, metadata. One piece instead of three. */
static void build_recorder_prefix(fr_event_site *site, const struct fr_tracepoint *tp)
{
    size_t size = tp->name_len + 1 + FR_EH_HEADER_SIZE + site->metadata_size;
    uint8_t *p = malloc(size);
    if (!p)
        return;   /* the writer then uses the three pieces */
    memcpy(p, tp->name, tp->name_len + 1);
    memcpy(p + tp->name_len + 1, site->header, FR_EH_HEADER_SIZE);
    memcpy(p + tp->name_len + 1 + FR_EH_HEADER_SIZE, site->metadata, site->metadata_size);
    site->recorder_prefix = p;
    site->recorder_prefix_size = (uint32_t)size;
    site->recorder_site_id = fr_event_site_table_add(p, (uint32_t)size);
}
_Static_assert(sizeof(void *) != 8 || (offsetof(fr_event_site, recorder_site_id) == 68 &&
                                       sizeof(fr_event_site) == 72),
               "recorder_site_id sits in the struct's former tail padding");

static bool add_site(struct fr_provider_state *st, fr_event_site *site)
{
    for (size_t i = 0; i < st->site_count; i++)
        if (st->sites[i] == site)
            return true;   /* this module was registered before */
    if (st->site_count == st->site_cap) {
        size_t cap = st->site_cap ? 2 * st->site_cap : 16;
        fr_event_site **p = realloc(st->sites, cap * sizeof *p);
        if (!p)
            return false;
        st->sites = p;
        st->site_cap = cap;
    }
    st->sites[st->site_count++] = site;
    return true;
}

static void enable_site(fr_event_site *site)
{
    fr_ue_register_site(site, site->tracepoint);
    fr_events_recorder_enable(site);
}

static void disable_site(fr_event_site *site)
{
    __atomic_fetch_and(&site->enabled, ~FR_SITE_RECORDER, __ATOMIC_RELAXED);
    fr_ue_unregister_site(site);
}

int fr_provider_register(fr_provider *p, fr_event_site *const *first, fr_event_site *const *last)
{
    if (!p || !valid_provider_name(p->name) || !valid_group(p->group)) {
        fprintf(stderr, "flightrec: provider name '%s' / group '%s' invalid (no ' ' or ':' in "
                "names; groups are lowercase letters and digits)\n",
                p && p->name ? p->name : "(null)", p && p->group ? p->group : "");
        return -1;
    }
    pthread_mutex_lock(&registry_lock);
    struct fr_provider_state *st = p->state;
    if (!st) {
        st = calloc(1, sizeof *st);
        if (!st) {
            pthread_mutex_unlock(&registry_lock);
            return -1;
        }
        st->provider = p;
        st->next = providers;
        providers = st;
        p->state = st;
    }
    /* Known sites come back after an unregister, or reach user_events anew in a forked
     * child; enabling an enabled site changes nothing. */
    st->registered = true;
    for (size_t i = 0; i < st->site_count; i++)
        enable_site(st->sites[i]);
    int rc = 0;
    for (fr_event_site *const *it = first; first && it < last; it++) {
        fr_event_site *site = *it;
        if (!site || site->provider != p || site->tracepoint)
            continue;
        build_header(site);
        struct fr_tracepoint *tp = tracepoint_for(st, site->level, site->keyword);
        if (!tp || !add_site(st, site)) {
            rc = -1;
            continue;
        }
        build_recorder_prefix(site, tp);
        site->tracepoint = tp;   /* before any enable bit can be set */
        enable_site(site);
    }
    pthread_mutex_unlock(&registry_lock);
    return rc;
}

static void unregister_locked(struct fr_provider_state *st)
{
    if (!st->registered)
        return;
    st->registered = false;
    for (size_t i = 0; i < st->site_count; i++)
        disable_site(st->sites[i]);
}

void fr_provider_unregister(fr_provider *p)
{
    if (!p || !p->state)
        return;
    pthread_mutex_lock(&registry_lock);
    unregister_locked(p->state);
    pthread_mutex_unlock(&registry_lock);
}

void fr_events_for_each_site(void (*fn)(fr_event_site *site, void *ctx), void *ctx)
{
    pthread_mutex_lock(&registry_lock);
    for (struct fr_provider_state *st = providers; st; st = st->next)
        if (st->registered)
            for (size_t i = 0; i < st->site_count; i++)
                fn(st->sites[i], ctx);
    pthread_mutex_unlock(&registry_lock);
}

/* ------------------------------------------------------------------ exit and fork */

static void before_fork(void) { pthread_mutex_lock(&registry_lock); }
static void after_fork_parent(void) { pthread_mutex_unlock(&registry_lock); }

static void after_fork_child(void)
{
    /* The child inherited the parent's kernel registrations for these addresses:
     * withdraw them (the flight recorder bits stay; the recorder decides about the
     * child); registering the provider again in the child reaches user_events anew. */
    for (struct fr_provider_state *st = providers; st; st = st->next)
        for (size_t i = 0; i < st->site_count; i++)
            fr_ue_unregister_site(st->sites[i]);
    fr_ue_forget_after_fork();
    fr_activity_after_fork_child();
    pthread_mutex_unlock(&registry_lock);
}

__attribute__((constructor)) static void install_fork_handlers(void)
{
    pthread_atfork(before_fork, after_fork_parent, after_fork_child);
}

__attribute__((destructor)) static void unregister_all_at_exit(void)
{
    pthread_mutex_lock(&registry_lock);
    for (struct fr_provider_state *st = providers; st; st = st->next)
        unregister_locked(st);
    pthread_mutex_unlock(&registry_lock);
}
