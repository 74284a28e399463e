/*
 * analyze/disparity.c -- the disparity analysis (SPEC §5.2, §5.3): every
 * region's CRNM (or CPI, or wall fraction) on its self values, averaged over
 * processes, in 5 severity classes by exact 1-D k-means; the regions of the
 * top classes holding enough of the run are the disparity CCRs/CCCRs.
 */
#include "analyze/aa_analyze.h"
#include "analyze/an_internal.h"
#include "cluster/aa_cluster.h"


#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- 1-D severity classes ---------------------------------------------------- */
/* k-means into 5 classes; with k_used < 5 classes, class j maps to
 * round(4j/(k_used-1)) so the top class is always "very high" (4) and the
 * bottom one "very low" (0).  centers (optional) get the 5-class centers
 * of the used classes. */
int an_severity_classes(an_ctx *c, const double *v, size_t n, int *cls, double *centers,
                            size_t *kused, double merge_rel)
{
    aa_kmeans_result km;
    size_t i, j, k;
    int grp[5] = {0, 0, 0, 0, 0};
    if (n == 0) {
        *kused = 0;
        return AA_OK;
    }
    memset(&km, 0, sizeof km);
    if (aa_cluster_kmeans1d(v, n, 5, &km, c->err))
        return c->err->code ? c->err->code : AA_EENV;
    /* merge_rel > 0: adjacent classes whose centers differ by no more than
     * merge_rel of the larger one are one class (noise, not a level) */
    k = 0;
    for (j = 0; j < km.k && j < 5; j++) {
        if (j > 0 && merge_rel > 0 &&
            km.centers[j] - km.centers[j - 1] <= merge_rel * fabs(km.centers[j]))
            grp[j] = grp[j - 1];
        else
            grp[j] = (int)k++;
    }
    /* With 5 classes the labels are the severities.  With fewer (few
     * distinct values, or merged classes) each class gets the level nearest
     * to its center's position between the lowest and the highest center,
     * so the top class is "very high" (4) and the bottom one "very low" (0). */
    {
        double gc[5] = {0, 0, 0, 0, 0};
        int sev[5] = {0, 0, 0, 0, 0};
        for (j = km.k < 5 ? km.k : 5; j-- > 0;)
            gc[grp[j]] = km.centers[j]; /* lowest center of each group */
        for (j = 0; j < k; j++)
            sev[j] = k == 5 ? (int)j
                     : k <= 1 || !(gc[k - 1] > gc[0])
                         ? 0
                         : (int)lround(4.0 * (gc[j] - gc[0]) / (gc[k - 1] - gc[0]));
        for (i = 0; i < n; i++)
            cls[i] = sev[grp[km.labels[i]]];
    }
    km.k = k;
    if (centers)
        for (i = 0; i < km.k && i < 5; i++)
            centers[i] = km.centers[i];
    *kused = km.k;
    aa_cluster_kmeans_free(&km);
    return AA_OK;
}
