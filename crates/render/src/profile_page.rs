//! The profile pages: one per (benchmark, version, repetition), holding
//! every metric and shape of the profile as views, unless the version's
//! aggregate page shows the repetitions' views instead (the default when
//! the page's script can derive them, see `shown_in_aggregates`; every
//! repetition keeps its page with `--repetition-pages`). Top-down shows the
//! inclusive flame graph and the heaviest functions; bottom-up and flat
//! show an exclusive and an inclusive flame graph (EasyView VI-A-a). Each
//! view has a tree table of its shape with every metric; the page links
//! to the other repetitions and versions, the version's aggregate, and
//! the differential views to its neighbours.
//!
//! The default view (the first metric, top-down) is written as HTML and
//! SVG and reads without JavaScript; the others are data in the page
//! (`#pa-views`: every graph's laid-out frames and the tree tables, with
//! one table of names and locations) that the page script draws when the
//! fragment asks for them (`#metric=samples&shape=bottom-up`). One page
//! instead of one per metric and shape: a sixth of the pages, a quarter
//! of the bytes.

use super::profile_views::{assemble, code_links, context, group_key, lay_out_shapes, ShapeCells};
use model::error::BuildError;

use crate::flame_plan::{by_profile, Context, PagePlan, SiteFiles};
use crate::page_kind::{Job, PageKind, SitePlan};
use rayon::prelude::*;

/// Renders the page of one profile, deriving each shape's trees (which
/// carry every metric) once: the bottom-up trees beside the flat trees,
/// which also give the heaviest functions.
pub fn render_profile(
    cx: &Context,
    pages: &[&PagePlan],
) -> Result<Vec<(String, Vec<u8>)>, BuildError> {
    let mut files = Vec::new();
    for page in pages {
        files.extend(render_page(cx, page)?);
    }
    Ok(files)
}

fn render_page(cx: &Context, page: &PagePlan) -> Result<SiteFiles, BuildError> {
    let code = code_links(cx, page);
    let cells = ShapeCells::default();
    let laid_out = lay_out_shapes(cx, page, &cells, &code);
    let (view, mut files) = assemble(cx, page, (&cells, laid_out, &code), None)?;
    let html = cx.renderer.render("profile.html", &view)?;
    files.insert(0, (page.path.clone(), html.into_bytes()));
    Ok(files)
}

/// The flame-graph pages of every profile: every metric and shape of one
/// profile are one group, kept or rendered together.
pub struct ProfilePages;

impl PageKind for ProfilePages {
    fn scripts(&self) -> &'static [(&'static str, &'static str)] {
        &[
            ("shapes.js", include_str!("../templates/assets/shapes.js")),
            ("flame.js", include_str!("../templates/assets/flame.js")),
        ]
    }

    fn templates(&self) -> &'static [(&'static str, &'static str)] {
        &[
            ("profile.html", include_str!("../templates/profile.html")),
            (
                "repetition.html",
                include_str!("../templates/repetition.html"),
            ),
            ("heaviest.html", include_str!("../templates/heaviest.html")),
            (
                "profile_navs.html",
                include_str!("../templates/profile_navs.html"),
            ),
        ]
    }

    fn name(&self) -> &'static str {
        "profile pages"
    }

    fn jobs<'a>(&self, site: &'a SitePlan<'a>) -> Vec<Job<'a>> {
        by_profile(&site.profiles)
            .into_par_iter()
            .map(|pages| {
                let key = site
                    .inputs
                    .as_ref()
                    .map(|i| group_key(&context(site), &pages, i));
                Job::keyed(key, move || render_profile(&context(site), &pages))
            })
            .collect()
    }
}
