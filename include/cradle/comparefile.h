/**
 * @file comparefile.h
 * @brief A comparison added to a run file: the /comparison group of every
 * rigid law on every episode, or of rigid runs against the compliant run
 * (docs/hdf5-layout.md; src/store/store-comparison.c, store-runs.c).
 */
#ifndef CRADLE_COMPAREFILE_H
#define CRADLE_COMPAREFILE_H

#include "cradle/common.h"
#include "cradle/compare.h"

/** What a /comparison group records about how it was made. */
typedef struct {
    const char *source;  /**< the run file or model the episodes came from */
    const char *command; /**< the command line */
    /** --error-estimate: per compared episode the changes of α, κ, eᴺ, eᴾ at
     * rtol/100 (4 values each, largest over the contacts), or NULL */
    const double *accuracy;
    double estimate_rtol; /**< the rtol of the estimate run (NaN without) */
} cr_comparison_params;

/**
 * Writes @p target as a copy of the run file @p source (which may be the same
 * path) with a /comparison group (docs/hdf5-layout.md) replacing any older
 * one. The copy is made beside @p target and renamed over it only after a
 * clean close and fsync: @p target is never edited in place, and on failure
 * it is unchanged and no temporary is left. @return CR_OK, CR_ERR_IO or
 * CR_ERR_HDF5 with the reason in @p msg.
 */
CR_EXPORT int cr_store_write_comparison(const char *source, const char *target,
                                        const cr_compare *cmp, const cr_comparison_params *params,
                                        char *msg, size_t msglen);

/**
 * Writes @p target as a copy of the compliant run file @p source with a
 * /comparison group holding the run comparison of @p n rigid variants
 * (docs/hdf5-layout.md, "/comparison of runs": tables `runs` and
 * `run_summary`), replacing any older /comparison; as
 * cr_store_write_comparison, @p target is never edited in place. @p command
 * is recorded. @return CR_OK, CR_ERR_IO or CR_ERR_HDF5 with the reason in @p msg.
 */
CR_EXPORT int cr_store_write_run_comparison(const char *source, const char *target,
                                            const cr_compare_runs_variant *variants, size_t n,
                                            const char *command, char *msg, size_t msglen);

#endif
