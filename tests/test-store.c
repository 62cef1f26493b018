/* HDF5 output: what is written reads back bit for bit with the plain HDF5 API
 * (no cradle needed), and no half-written file is ever left under the name. */
#include <hdf5.h>
#include <string.h>
#include <unistd.h>

#include "cradle/cradle.h"
#include "testutil.h"

static cr_model *cradle3(void)
{
    cr_model *model = cr_model_create();
    cr_model_add_ball(model, 0.0329, 0.01, 0.0, 1.0);
    cr_model_add_ball(model, 0.0329, 0.01, 0.02 + 1e-6, 0.0);
    cr_model_add_ball(model, 0.0329, 0.01, 0.04 + 1e-6, 0.0);
    cr_contact_params law;
    cr_contact_params_init(&law, 1.0878565e10, 1.5, 0.0, CR_RELEASE_GAP);
    cr_model_set_default_contact(model, &law);
    cr_model_set_name(model, "store-test");
    return model;
}

static hsize_t rows_of(hid_t file, const char *name, hsize_t *cols)
{
    hid_t d = H5Dopen2(file, name, H5P_DEFAULT);
    if (d < 0)
        return 0;
    hid_t s = H5Dget_space(d);
    hsize_t dims[2] = {0, 0};
    int rank = H5Sget_simple_extent_dims(s, dims, NULL);
    if (cols)
        *cols = rank == 2 ? dims[1] : 1;
    H5Sclose(s);
    H5Dclose(d);
    return dims[0];
}

static void read_string_attr(hid_t file, const char *name, char *out, size_t len)
{
    out[0] = '\0';
    hid_t a = H5Aopen(file, name, H5P_DEFAULT);
    if (a < 0)
        return;
    hid_t t = H5Aget_type(a);
    size_t n = H5Tget_size(t);
    char *buf = malloc(n + 1);
    H5Aread(a, t, buf);
    buf[n] = '\0';
    snprintf(out, len, "%s", buf);
    free(buf);
    H5Tclose(t);
    H5Aclose(a);
}

static int stop_after;
static int limited_callback(const cr_sim *sim, void *user)
{
    int rc = cr_store_append_frame(user, sim);
    return rc != CR_OK || --stop_after <= 0;
}

int main(void)
{
    const char *path = "test-store-out.h5";
    const char *text = "# archived model text\nname: store-test\n";
    char msg[512], s[256];
    unlink(path);

    /* a complete run */
    cr_model *model = cradle3();
    cr_sim *sim = cr_sim_create(model, msg, sizeof msg);
    cr_store *st = cr_store_create(path, model, "inline", text, msg, sizeof msg);
    CHECK(st != NULL, "create: %s", msg);
    CHECK(access(path, F_OK) != 0, "nothing under the final name while running");
    cr_sim_set_output(sim, 0.0, cr_store_output_callback, st);
    cr_monitor *mon = cr_monitor_create(sim);
    CHECK(cr_sim_run(sim, 0.0) == CR_OK, "run: %s", cr_sim_last_error(sim));
    cr_monitor_finish(mon);
    CHECK(cr_store_write_episodes(st, mon) == CR_OK, "episodes: %s", cr_store_last_error(st));
    CHECK(cr_store_commit(st, sim, "complete") == CR_OK, "commit: %s", cr_store_last_error(st));
    cr_store_destroy(st);

    hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    CHECK(f >= 0, "file opens with the plain HDF5 API");
    hsize_t cols;
    hsize_t n = rows_of(f, "/trajectory/time", NULL);
    CHECK(n == (hsize_t)cr_sim_get_stats(sim).outputs, "one row per output: %llu vs %ld",
          (unsigned long long)n, cr_sim_get_stats(sim).outputs);
    CHECK(rows_of(f, "/trajectory/velocity", &cols) == n && cols == 3, "velocity n x 3");
    CHECK(rows_of(f, "/trajectory/overlap", &cols) == n && cols == 2, "overlap n x 2");
    CHECK(rows_of(f, "/events", NULL) == cr_sim_event_count(sim), "all events stored");
    CHECK(rows_of(f, "/model/mass", NULL) == 3, "model masses");
    CHECK(rows_of(f, "/episodes", NULL) == cr_monitor_episode_count(mon) &&
              cr_monitor_episode_count(mon) == 1,
          "one episode stored");
    CHECK(rows_of(f, "/episode/0000/contacts", NULL) == 2, "two contact records");
    CHECK(rows_of(f, "/episode/0000/alpha_matrix", &cols) == 2 && cols == 2, "alpha matrix");
    {
        /* the stored impulses are the monitor's, exactly */
        size_t nc;
        const cr_contact_record *rec = cr_monitor_contacts(mon, 0, &nc);
        double Pm[4];
        hid_t dm = H5Dopen2(f, "/episode/0000/alpha_matrix", H5P_DEFAULT);
        H5Dread(dm, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, Pm);
        H5Dclose(dm);
        CHECK(Pm[1] == rec[1].impulse / rec[0].impulse, "alpha_01 = P1/P0 stored");
    }
    cr_monitor_destroy(mon);

    /* last velocity row = the simulator's final state, exactly */
    double *vel = malloc(n * 3 * sizeof(double)), vfinal[3];
    hid_t d = H5Dopen2(f, "/trajectory/velocity", H5P_DEFAULT);
    H5Dread(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, vel);
    H5Dclose(d);
    cr_sim_get_velocities(sim, vfinal);
    for (int i = 0; i < 3; i++)
        CHECK(vel[(n - 1) * 3 + i] == vfinal[i], "final velocity %d stored exactly", i);
    CHECK(vel[0] == 1.0 && vel[1] == 0.0, "first row = initial state");
    free(vel);

    read_string_attr(f, "status", s, sizeof s);
    CHECK(strcmp(s, "complete") == 0, "status = '%s'", s);
    read_string_attr(f, "model_text", s, sizeof s);
    CHECK(strcmp(s, text) == 0, "model text archived");
    read_string_attr(f, "cradle_version", s, sizeof s);
    CHECK(strcmp(s, cr_version()) == 0, "version archived");
    H5Fclose(f);
    cr_sim_destroy(sim);

    /* an interrupted run keeps a valid file that says so */
    sim = cr_sim_create(model, msg, sizeof msg);
    st = cr_store_create(path, model, "inline", text, msg, sizeof msg);
    stop_after = 5;
    cr_sim_set_output(sim, 0.0, limited_callback, st);
    CHECK(cr_sim_run(sim, 0.0) == CR_ERR_INTERRUPTED, "callback stops the run");
    CHECK(cr_store_commit(st, sim, "interrupted") == CR_OK, "commit interrupted");
    cr_store_destroy(st);
    f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    CHECK(f >= 0 && rows_of(f, "/trajectory/time", NULL) == 5, "5 rows kept");
    read_string_attr(f, "status", s, sizeof s);
    CHECK(strcmp(s, "interrupted") == 0, "status = '%s'", s);
    H5Fclose(f);
    cr_sim_destroy(sim);

    /* a store destroyed before commit leaves neither the file nor its temporary */
    unlink(path);
    st = cr_store_create(path, model, NULL, NULL, msg, sizeof msg);
    cr_store_destroy(st);
    CHECK(access(path, F_OK) != 0, "no file after an abandoned store");
    char tmp[512];
    snprintf(tmp, sizeof tmp, "%s.tmp.%ld", path, (long)getpid());
    CHECK(access(tmp, F_OK) != 0, "no temporary left");

    /* a wave in a long chain: an episode of 299 contacts keeps its records but no
     * dense matrices (they grow as contacts²), and says so */
    {
        cr_model *lm = cr_model_create();
        for (int i = 0; i < 300; i++)
            cr_model_add_ball(lm, 0.0041, 0.005, 0.01 * i + (i ? 1e-6 : 0.0), i ? 0.0 : 1.0);
        cr_contact_params law;
        cr_contact_params_init(&law, 7.7e9, 1.5, 0.0, CR_RELEASE_GAP);
        cr_model_set_default_contact(lm, &law);
        cr_sim *ls = cr_sim_create(lm, msg, sizeof msg);
        st = cr_store_create(path, lm, NULL, NULL, msg, sizeof msg);
        cr_monitor *lmon = cr_monitor_create(ls);
        cr_sim_set_output(ls, 0.0, cr_store_output_callback, st);
        CHECK(cr_sim_run(ls, 2e-4) == CR_OK, "long chain: %s", cr_sim_last_error(ls));
        cr_monitor_finish(lmon);
        CHECK(cr_store_write_episodes(st, lmon) == CR_OK && cr_store_commit(st, ls, "complete") == CR_OK,
              "stored");
        cr_store_destroy(st);
        f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
        CHECK(rows_of(f, "/episode/0000/contacts", NULL) == 299, "299 contact records");
        CHECK(H5Lexists(f, "/episode/0000/alpha_matrix", H5P_DEFAULT) == 0, "no dense alpha matrix");
        CHECK(H5Aexists_by_name(f, "/episode/0000", "dense_matrices", H5P_DEFAULT) > 0,
              "the omission is stated");
        H5Fclose(f);
        cr_monitor_destroy(lmon);
        cr_sim_destroy(ls);
        cr_model_destroy(lm);
        unlink(path);
    }

    /* a pool's trajectory streams like a chain's and reads back exactly */
    {
        cr_disc d[2] = {{0.03, 0.01, 0.0, 0.0, 1.0, 0.2}, {0.03, 0.01, 0.0201, 0.0, 0.0, 0.0}};
        cr_contact_params law;
        cr_contact_params_init(&law, 1e9, 1.5, 0.0, CR_RELEASE_GAP);
        cr_pool *pool = cr_pool_create(2, d, &law, msg, sizeof msg);
        st = cr_store_create_pool(path, pool, "inline", text, msg, sizeof msg);
        CHECK(st != NULL, "pool store: %s", msg);
        cr_pool_monitor *pm = cr_pool_monitor_create(pool);
        cr_pool_set_output(pool, 1e-4, cr_store_pool_output_callback, st);
        CHECK(cr_pool_run(pool, 2e-3) == CR_OK, "pool run: %s", cr_pool_last_error(pool));
        cr_pool_monitor_finish(pm);
        CHECK(cr_store_commit_pool(st, pool, pm, "complete") == CR_OK, "pool commit: %s",
              cr_store_last_error(st));
        cr_store_destroy(st);
        f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
        hsize_t rows = rows_of(f, "/trajectory/time", NULL);
        CHECK(rows == 21, "t = 0, 20 intervals of 0.1 ms: %llu rows", (unsigned long long)rows);
        CHECK(rows_of(f, "/trajectory/velocity", &cols) == rows && cols == 4, "velocity T x 2N");
        double *vel = malloc(rows * 4 * sizeof(double)), vf[4];
        hid_t dv = H5Dopen2(f, "/trajectory/velocity", H5P_DEFAULT);
        H5Dread(dv, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, vel);
        H5Dclose(dv);
        cr_pool_get_velocities(pool, vf);
        for (int i = 0; i < 4; i++)
            CHECK(vel[(rows - 1) * 4 + i] == vf[i], "final pool velocity %d stored exactly", i);
        free(vel);
        CHECK(rows_of(f, "/episodes", NULL) == 1, "one pool episode stored");
        read_string_attr(f, "status", s, sizeof s);
        CHECK(strcmp(s, "complete") == 0, "pool status = '%s'", s);
        H5Fclose(f);
        cr_pool_monitor_destroy(pm);
        cr_pool_destroy(pool);
        unlink(path);
    }

    /* an unwritable place is a clear error */
    CHECK(cr_store_create("/nonexistent-dir/x.h5", model, NULL, NULL, msg, sizeof msg) == NULL,
          "unwritable path refused");
    CHECK(strstr(msg, "/nonexistent-dir/x.h5") != NULL, "message names the path: %s", msg);
    cr_model_destroy(model);
    unlink(path);
    return tu_finish("test-store");
}
