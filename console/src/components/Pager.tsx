import { useSearchParams } from "react-router";

/** One page of a long list, the page number kept in the URL (`?page=`). */
export function usePage<T>(items: T[], perPage: number) {
	const [search, setSearch] = useSearchParams();
	const pages = Math.max(1, Math.ceil(items.length / perPage));
	const page = Math.min(pages, Math.max(1, Number(search.get("page")) || 1));
	const go = (n: number) =>
		setSearch((s) => {
			n === 1 ? s.delete("page") : s.set("page", String(n));
			return s;
		});
	const pager =
		pages > 1 ? (
			<nav className="row pager" aria-label="Pages">
				<button type="button" disabled={page === 1} onClick={() => go(page - 1)}>
					Previous
				</button>
				<span>
					Page {page} of {pages} ({items.length} in all)
				</span>
				<button type="button" disabled={page === pages} onClick={() => go(page + 1)}>
					Next
				</button>
			</nav>
		) : null;
	return { pageItems: items.slice((page - 1) * perPage, page * perPage), pager };
}
