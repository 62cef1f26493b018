// Siconos 4.4's own LZB law (MultipleImpact, "BiStiffness") on a chain of balls,
// as a reference for test-laws: ball 0 approaches the others, which touch at rest.
//
//   ref-siconos-lzb DP TOL e n K0 K1 ... -- m0 m1 ... -- v0 v1 ...
//
// Then the processor time the impact took (processEvents of the impact event), s.
// DP is Siconos' fixed step of the primary contact's impulse (N s); TOL its
// thresholds below which a velocity or an energy counts as zero (its default is
// the machine epsilon, absolute: energies of contacts that have just engaged fall
// under it and are restarted every step). Prints the
// post-impact velocities, one per line, with 17 digits. Written against the
// Debian package (libsiconos-kernel-dev 4.4); built only when it is installed.
#include <SiconosKernel.hpp>

#include <cstdio>
#include <ctime>
#include <cstdlib>
#include <string>
#include <vector>

int main(int argc, char **argv)
{
    if (argc < 9) {
        std::fprintf(stderr, "usage: %s DP TOL e n K... -- m... -- v...\n", argv[0]);
        return 2;
    }
    double dp = std::atof(argv[1]), tol = std::atof(argv[2]);
    double e = std::atof(argv[3]), n = std::atof(argv[4]);
    std::vector<double> K, m, v;
    int part = 0;
    for (int i = 5; i < argc; i++) {
        if (std::string(argv[i]) == "--") {
            part++;
            continue;
        }
        (part == 0 ? K : part == 1 ? m : v).push_back(std::atof(argv[i]));
    }
    size_t nb = m.size();
    if (nb < 2 || v.size() != nb || K.size() != nb - 1) {
        std::fprintf(stderr, "need N masses, N velocities, N - 1 stiffnesses\n");
        return 2;
    }
    try {
        // ball 0 a small gap away, the others touching: the impact comes at
        // t = gap / (v0 - v1), with every contact of the chain closed
        const double R = 0.5, gap = 1e-3 * (v[0] - v[1]), t_end = 2e-3;
        SP::NonSmoothDynamicalSystem nsds(new NonSmoothDynamicalSystem(0.0, t_end));
        std::vector<SP::DynamicalSystem> balls;
        for (size_t i = 0; i < nb; i++) {
            SP::SiconosVector q0(new SiconosVector(1)), v0(new SiconosVector(1));
            SP::SiconosMatrix M(new SimpleMatrix(1, 1));
            (*q0)(0) = 2.0 * R * (double)i + (i == 0 ? -gap : 0.0);
            (*v0)(0) = v[i];
            (*M)(0, 0) = m[i];
            SP::LagrangianLinearTIDS ball(new LagrangianLinearTIDS(q0, v0, M));
            balls.push_back(ball);
            nsds->insertDynamicalSystem(ball);
        }
        for (size_t c = 0; c + 1 < nb; c++) {
            SP::SimpleMatrix H(new SimpleMatrix(1, 2));
            (*H)(0, 0) = -1.0;
            (*H)(0, 1) = 1.0;
            SP::SiconosVector E(new SiconosVector(1));
            (*E)(0) = -2.0 * R;
            SP::NonSmoothLaw law(new MultipleImpactNSL(e, K[c], n));
            SP::Relation rel(new LagrangianLinearTIR(H, E));
            SP::Interaction inter(new Interaction(law, rel));
            nsds->link(inter, balls[c], balls[c + 1]);
        }
        SP::TimeDiscretisation td(new TimeDiscretisation(0.0, t_end / 4));
        SP::OneStepIntegrator osi(new LsodarOSI());
        SP::MultipleImpact impact(new MultipleImpact("BiStiffness", dp));
        impact->SetNstepMax(1000000000u);
        impact->setTolImpact(tol);
        impact->SetTolVel(tol);
        impact->SetTolEner(tol);
        impact->SetZeroVelEndImp(tol);
        impact->SetZeroEnerEndImp(tol);
        SP::OneStepNSProblem acceleration(new LCP());
        SP::EventDriven s(new EventDriven(nsds, td));
        s->insertIntegrator(osi);
        s->insertNonSmoothProblem(impact, SICONOS_OSNSP_ED_IMPACT);
        s->insertNonSmoothProblem(acceleration, SICONOS_OSNSP_ED_SMOOTH_ACC);
        s->initialize();
        SP::EventsManager events = s->eventsManager();
        double seconds = 0.0;
        while (s->hasNextEvent()) {
            s->advanceToEvent();
            // the touching contacts make t = 0 an impact event too (with nothing
            // approaching, MultipleImpact changes nothing there)
            bool impact_event = events->nextEvent()->getType() == 2 && s->startingTime() > 0.0;
            std::clock_t t0 = std::clock();
            s->processEvents();
            if (impact_event) {
                seconds = (double)(std::clock() - t0) / CLOCKS_PER_SEC;
                break;
            }
        }
        for (size_t i = 0; i < nb; i++) {
            SP::LagrangianDS ds = std::static_pointer_cast<LagrangianDS>(balls[i]);
            std::printf("%.17g\n", (*ds->velocity())(0));
        }
        std::printf("%.6g\n", seconds); // the impact's processing time, s
    } catch (...) {
        std::fprintf(stderr, "siconos failed\n");
        return 1;
    }
    return 0;
}
