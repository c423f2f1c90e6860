// Reading atoms for the Voronoi diagram from small PDB and mmCIF files made here: file order when
// residue numbers repeat, mmCIF without auth_seq_id, MODEL records of any layout, Voronota's
// alternate-location rule, and the command's refusal of fewer than 4 balls. Where the voronota binary
// is installed, its get-balls-from-atoms-file reads the same files to the same balls.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#include "portacl/io/molecule.hpp"
#include "portacl/runtime/error.hpp"

using namespace portacl;

namespace {

// One ATOM/HETATM line in PDB's columns.
std::string atomLine(const char* record, int serial, const char* name, char altLoc, const char* resName, char chain,
                     int resSeq, double x, double y, double z, const char* element) {
    char line[100];
    std::snprintf(line, sizeof line, "%-6s%5d %-4s%c%3s %c%4d    %8.3f%8.3f%8.3f  1.00  0.00          %2s\n", record,
                  serial, name, altLoc, resName, chain, resSeq, x, y, z, element);
    return line;
}

std::string writeFile(const std::string& name, const std::string& text) {
    const std::string path = testing::TempDir() + name;
    std::ofstream(path, std::ios::binary) << text;
    return path;
}

bool haveVoronota() { return std::system("command -v voronota >/dev/null 2>&1") == 0; }

// Voronota's balls of a file (first model, its default filters).
std::vector<io::Ball> voronotaBalls(const std::string& path, bool cif) {
    const std::string out = path + ".voronota_balls";
    const std::string cmd = std::string("voronota get-balls-from-atoms-file") + (cif ? " --input-format mmcif" : "") +
                            " < " + path + " > " + out + " 2>/dev/null";
    EXPECT_EQ(std::system(cmd.c_str()), 0) << cmd;
    return io::readBallList(out);
}

void expectSameBalls(const std::vector<io::Ball>& got, const std::vector<io::Ball>& want) {
    ASSERT_EQ(got.size(), want.size());
    for (std::size_t i = 0; i < got.size(); ++i) {
        EXPECT_NEAR(got[i].x, want[i].x, 1e-9) << "ball " << i;
        EXPECT_NEAR(got[i].y, want[i].y, 1e-9) << "ball " << i;
        EXPECT_NEAR(got[i].z, want[i].z, 1e-9) << "ball " << i;
        EXPECT_NEAR(got[i].r, want[i].r, 1e-9) << "ball " << i;
    }
}

// An MD-style water box: residue numbers wrap around, so the same (chain, number) comes back later.
std::string waterBoxPdb() {
    std::string s;
    int serial = 1;
    for (int w = 0; w < 12; ++w) {
        const int resSeq = w % 4 + 1;  // 1 2 3 4 1 2 3 4 ...
        const double x = 3.1 * w;
        s += atomLine("ATOM", serial++, "OW", ' ', "SOL", 'W', resSeq, x, 0, 0, "O");
        s += atomLine("ATOM", serial++, "CW", ' ', "SOL", 'W', resSeq, x, 1.5, 0.3, "C");
    }
    return s + "END\n";
}

}  // namespace

TEST(VoronoiInputOrder, RepeatedResidueNumbersKeepFileOrder) {
    const std::string path = writeFile("voronoi_input_waterbox.pdb", waterBoxPdb());
    const auto frames = io::readMolecule(path);
    ASSERT_EQ(frames.size(), 1u);
    const auto& b = frames[0].balls;
    ASSERT_EQ(b.size(), 24u);
    for (std::size_t i = 0; i < b.size(); ++i) {
        EXPECT_DOUBLE_EQ(b[i].x, 3.1 * static_cast<double>(i / 2)) << "ball " << i;
        EXPECT_DOUBLE_EQ(b[i].y, i % 2 ? 1.5 : 0.0) << "ball " << i;
        EXPECT_DOUBLE_EQ(b[i].r, i % 2 ? 1.70 : 1.52) << "ball " << i;
    }
    if (haveVoronota()) expectSameBalls(b, voronotaBalls(path, false));
}

TEST(VoronoiInputOrder, CifWithoutAuthSeqIdReadsLabelSeqId) {
    // What PyMOL writes: label_* columns only.
    std::ostringstream s;
    s << "data_pymol\nloop_\n_atom_site.group_PDB\n_atom_site.id\n_atom_site.type_symbol\n"
         "_atom_site.label_atom_id\n_atom_site.label_alt_id\n_atom_site.label_comp_id\n"
         "_atom_site.label_asym_id\n_atom_site.label_seq_id\n_atom_site.Cartn_x\n_atom_site.Cartn_y\n"
         "_atom_site.Cartn_z\n_atom_site.pdbx_PDB_model_num\n";
    const char* names[] = {"N", "CA", "C", "O", "SD"};
    const char* elements[] = {"N", "C", "C", "O", "S"};
    for (int i = 0; i < 10; ++i)
        s << "ATOM " << i + 1 << ' ' << elements[i % 5] << ' ' << names[i % 5] << " . ALA A " << (i / 5 + 1) << ' '
          << 1.5 * i << " 0.25 " << -0.5 * i << " 1\n";
    const std::string path = writeFile("voronoi_input_pymol.cif", s.str());
    const auto frames = io::readMolecule(path);
    ASSERT_EQ(frames.size(), 1u);
    ASSERT_EQ(frames[0].balls.size(), 10u);
    EXPECT_EQ(frames[0].labels[7].resSeq, 2);
    EXPECT_DOUBLE_EQ(frames[0].balls[4].r, 1.80);
    EXPECT_DOUBLE_EQ(frames[0].balls[9].x, 13.5);
    if (haveVoronota()) expectSameBalls(frames[0].balls, voronotaBalls(path, true));
}

TEST(VoronoiInputOrder, CifWithNoAtomsSaysSo) {
    const std::string path = writeFile("voronoi_input_empty.cif", "data_empty\n_cell.length_a 10\n");
    try {
        io::readMolecule(path);
        FAIL() << "expected an error";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("no atom records"), std::string::npos) << e.what();
    }
}

TEST(VoronoiInputOrder, ModelNumbersOfAnyLayoutAreFrames) {
    // ElNemo writes left-justified model numbers; some tools repeat them. Frames follow file order.
    std::string s;
    for (const char* model : {"MODEL 1\n", "MODEL 1\n", "MODEL        7\n"}) {
        s += model;
        for (int i = 0; i < 4; ++i) s += atomLine("ATOM", i + 1, "CA", ' ', "GLY", 'A', i + 1, i, i * i, 0.5 * i, "C");
        s += "ENDMDL\n";
    }
    const auto frames = io::readMolecule(writeFile("voronoi_input_models.pdb", s + "END\n"));
    EXPECT_EQ(frames.size(), 3u);
    for (const auto& f : frames) EXPECT_EQ(f.balls.size(), 4u);
    io::MoleculeOptions first;
    first.allModels = false;
    EXPECT_EQ(io::readMolecule(writeFile("voronoi_input_models1.pdb", s), first).size(), 1u);
}

TEST(VoronoiInputOrder, AltlocsBlankAOrOneAreKeptAsVoronota) {
    std::string s;
    int serial = 1;
    // Residue 1: no altloc; residue 2: B before A (the first seen is not the one kept); residue 3: 1 and 2.
    s += atomLine("ATOM", serial++, "N", ' ', "SER", 'A', 1, 0, 0, 0, "N");
    s += atomLine("ATOM", serial++, "CA", 'B', "SER", 'A', 2, 1, 0, 0, "C");
    s += atomLine("ATOM", serial++, "CA", 'A', "SER", 'A', 2, 2, 0, 0, "C");
    s += atomLine("ATOM", serial++, "OG", 'a', "SER", 'A', 2, 3, 0, 0, "O");
    s += atomLine("ATOM", serial++, "CB", '1', "SER", 'A', 3, 4, 0, 0, "C");
    s += atomLine("ATOM", serial++, "CB", '2', "SER", 'A', 3, 5, 0, 0, "C");
    const std::string path = writeFile("voronoi_input_altlocs.pdb", s + "END\n");
    const auto frames = io::readMolecule(path);
    ASSERT_EQ(frames[0].balls.size(), 3u);
    EXPECT_DOUBLE_EQ(frames[0].balls[0].x, 0);
    EXPECT_DOUBLE_EQ(frames[0].balls[1].x, 2);  // A, not the B seen first
    EXPECT_DOUBLE_EQ(frames[0].balls[2].x, 4);  // 1
    io::MoleculeOptions all;
    all.allAltlocs = true;
    EXPECT_EQ(io::readMolecule(path, all)[0].balls.size(), 6u);
}

TEST(VoronoiInputOrder, CommandRefusesFewerThanFourBallsAsVoronota) {
    const std::string dir = testing::TempDir();
    const std::string in = writeFile("voronoi_input_three.xyzr", "0 0 0 1\n3 0 0 1\n0 3 0 1\n");
    const std::string out = dir + "voronoi_input_three_vertices.txt", errFile = dir + "voronoi_input_three_err.txt";
    std::remove(out.c_str());
    const int rc = std::system((std::string(PORTACL_CLI_PATH) + " voronoi " + in + " -o " + out + " --serial 2>" + errFile).c_str());
    EXPECT_NE(rc, 0);
    std::ifstream e(errFile);
    const std::string err((std::istreambuf_iterator<char>(e)), std::istreambuf_iterator<char>());
    EXPECT_NE(err.find("at least 4"), std::string::npos) << err;
    EXPECT_FALSE(std::ifstream(out).good());
    if (haveVoronota())  // Voronota refuses the same input
        EXPECT_NE(std::system(("voronota calculate-vertices < " + in + " >/dev/null 2>&1").c_str()), 0);
}

// A file of thousands of models (over 4 MiB, read in pieces on several threads): every model in file
// order with its own coordinates, a bad atom line named by its line in the whole file, and nothing
// read past an END record, as one reading gives them.
namespace {

struct ManyModels {
    std::string text;
    int badLine = 0;  // the line of the bad atom record, when one was asked for
};

// `models` models of 20 carbon atoms, atom i of model m at (1.5 i, (m % 997) / 8, m / 997); the
// model `bad` (0: none) has an atom record without coordinates, and an END record follows model `end`.
ManyModels manyModels(int models, int bad = -1, int end = -1) {
    ManyModels out;
    int line = 0;
    auto add = [&](const std::string& s) {
        out.text += s;
        ++line;
    };
    for (int m = 0; m < models; ++m) {
        char head[32];
        std::snprintf(head, sizeof head, m % 2 ? "MODEL     %4d\n" : "MODEL %d\n", m + 1);
        add(head);
        for (int i = 0; i < 20; ++i) {
            if (m == bad && i == 7) {
                add("ATOM      8  C   ALA A   1                                                       C\n");
                out.badLine = line;
                continue;
            }
            add(atomLine("ATOM", i + 1, "C", ' ', "ALA", 'A', 1, 1.5 * i, (m % 997) / 8.0, m / 997, "C"));
        }
        add("ENDMDL\n");
        if (m == end) add("END\n");
    }
    return out;
}

}  // namespace

TEST(VoronoiInputOrder, ThousandsOfModelsReadInPiecesAreTheFilesModelsInOrder) {
    const ManyModels f = manyModels(3000);
    ASSERT_GT(f.text.size(), std::size_t(4) << 20) << "the file must be large enough to be read in pieces";
    const std::string path = writeFile("many_models.pdb", f.text);
    const auto frames = io::readMolecule(path, {});
    ASSERT_EQ(frames.size(), 3000u);
    for (int m = 0; m < 3000; ++m) {
        ASSERT_EQ(frames[m].balls.size(), 20u) << "model " << m + 1;
        for (int i = 0; i < 20; i += 19) {
            EXPECT_NEAR(frames[m].balls[i].x, 1.5 * i, 1e-9) << "model " << m + 1;
            EXPECT_NEAR(frames[m].balls[i].y, (m % 997) / 8.0, 1e-9) << "model " << m + 1;
            EXPECT_NEAR(frames[m].balls[i].z, m / 997, 1e-9) << "model " << m + 1;
            EXPECT_NEAR(frames[m].balls[i].r, 1.70, 1e-12);
        }
    }
    io::MoleculeOptions first;
    first.allModels = false;
    EXPECT_EQ(io::readMolecule(path, first).size(), 1u);

    const ManyModels ended = manyModels(3000, 2999, 1999);  // the bad line lies past the END
    const auto upToEnd = io::readMolecule(writeFile("many_models_end.pdb", ended.text), {});
    ASSERT_EQ(upToEnd.size(), 2000u);
    EXPECT_NEAR(upToEnd.back().balls[0].y, (1999 % 997) / 8.0, 1e-9);

    const ManyModels bad = manyModels(3000, 2500);
    try {
        io::readMolecule(writeFile("many_models_bad.pdb", bad.text), {});
        FAIL() << "an atom record without coordinates was read";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("line " + std::to_string(bad.badLine) + " "), std::string::npos) << e.what();
    }
}
