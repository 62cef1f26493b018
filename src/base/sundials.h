/* SUNDIALS glue shared by the LZB law's CVODE and the engines' integrators:
 * the error handler that keeps SUNDIALS' own text, and the rule for root
 * functions. Plain C types only, so no layer needs SUNDIALS' headers for it. */
#ifndef CRADLE_SUNDIALS_H
#define CRADLE_SUNDIALS_H

/* A SUNDIALS error handler (CVODES' and ARKODE's share the signature;
 * base/sundials.c): SUNDIALS hands its message over before returning the flag,
 * and it is kept in @p user, a CR_ERRMSG_LEN buffer, so the error the user
 * sees says why. */
void cr_sundials_error_handler(int code, const char *module, const char *function, char *msg,
                               void *user);

/* CVODE stops with CV_ILL_INPUT ("Root found at and very near t") when a root
 * function is exactly 0 at a located root and again just after it. That happens
 * in real states: behind a pulse two beads of a loaded contact can carry
 * bit-identical velocities, so δ̇ is 0.0 over an interval; a heavily damped
 * release law K δ + C δ̇ can cancel to 0.0 at two neighbouring instants. Every
 * root function of every engine goes through this: an exact 0 counts as
 * positive, so only true sign changes are roots and CVODE never meets a zero. */
static inline double cr_root_nonzero(double g)
{
    /* not a power of two: CVODE's Illinois step scales the left value by powers
     * of two, and must never meet the right value exactly (0/0) */
    return g != 0.0 ? g : 1e-300;
}

#endif
