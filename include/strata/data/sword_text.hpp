// Bible texts as Debian ships them for SWORD (sword-text-web: the World English Bible, public
// domain): a zText module's compressed blocks read into plain verses, markup removed, so that a
// language model or word2vec has a public-domain English corpus without a download.
#pragma once
#include <string>
#include <vector>

namespace strata::data {

// Where Debian's sword-text-web installs the World English Bible.
inline constexpr const char* kWorldEnglishBible = "/usr/share/sword/modules/texts/ztext/engWEB2015eb";

// The verses of the zText module in `dir` (ot.bzs/.bzv/.bzz, nt.*: either testament may be
// missing, not both), Old Testament first, in canonical order, one string per verse with its
// OSIS/ThML markup removed: tags dropped, the contents of <note> and <title> left out, the five
// XML entities decoded. Headings that hold no text give no verse. Errors name the file when an
// index points outside the data, a block does not inflate to its recorded size, or a block is
// larger than limits().max_tensor_bytes.
std::vector<std::string> read_sword_ztext(const std::string& dir);

// OSIS/ThML markup to its text, as read_sword_ztext cleans each verse (exposed for tests).
std::string strip_sword_markup(const std::string& marked_up);

}  // namespace strata::data
